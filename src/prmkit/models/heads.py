"""What a reward-model kind is: a `Head` over the decoder's hidden states (targets, truncation, outputs, loss,
scores, export form), chosen by name from `HEADS`."""

from collections.abc import Callable
from typing import Any, ClassVar

import torch

from prmkit.models.losses import bradley_terry_loss, soft_cross_entropy, step_weights

__all__ = ["HEADS", "BinaryHead", "BradleyTerryHead", "ClassTokenHead", "Head", "OutcomeHead", "ThreeClassHead",
           "class_targets", "head_class"]


class Head(torch.nn.Module):
    """The interface of a reward-model head; subclasses set the class attributes and what differs."""

    class_fields: ClassVar[tuple[str, ...]] = ()  # config fields of the reserved class tokens, positive first
    label_source: ClassVar[str] = "steps"  # key of prmkit.train.data.LABEL_SOURCES ("pairs": PUM pair files)
    aggregation: ClassVar[str | None] = None  # how a trace is scored from its step outputs, when not the config's
    label_names: ClassVar[tuple[str, ...]] = ()  # one name per output, in output order (id2label of an export)
    help: ClassVar[str] = ""

    def __init__(self, config: Any, token_id: Callable[[str], int]):
        """`token_id` resolves a reserved token to its single id (raises when it is not one token)."""
        super().__init__()
        self.class_ids = [token_id(getattr(config, name)) for name in self.class_fields]

    def attach(self, model: Any) -> None:
        """Build what depends on the model (e.g. a value head's width); the class-token heads need nothing."""

    def target_positions(self, separators: list[int]) -> list[int]:
        """The positions with a target among the step delimiters (one per step, in order)."""
        return separators

    def keep(self, positions: list[int], max_length: int) -> list[int] | None:
        """Indices of the targets kept when inputs are cut at `max_length` tokens; None = skip the trace."""
        return [k for k, p in enumerate(positions) if p < max_length] or None

    @classmethod
    def check_labels(cls, labels: list[list[float]]) -> None:
        """Refuse a training set this head cannot learn from (all labels of all examples)."""

    @classmethod
    def targets(cls, labels: list[float]) -> list[list[float]]:
        raise NotImplementedError

    def forward(self, hidden: torch.Tensor, lm_head: torch.nn.Module) -> torch.Tensor:
        """Outputs (P, C) from the hidden states (P, H) at the target positions."""
        raise NotImplementedError

    def weights(self, groups: list[str]) -> torch.Tensor:
        """Each target's share of the batch loss, from the groups (problems) of all the targets of the batch."""
        return step_weights(groups)

    def target_losses(self, outputs: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        """Per-target loss (P,)."""
        return soft_cross_entropy(outputs, targets)

    def loss(self, outputs: torch.Tensor, targets: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
        """This micro-batch's part of the batch loss (sums to `grouped_cross_entropy` over micro-batches)."""
        return (self.target_losses(outputs, targets) * weights).sum()

    def hits(self, outputs: torch.Tensor, targets: torch.Tensor) -> int:
        """Targets whose predicted class is the target's most likely class."""
        return int((outputs.argmax(-1) == targets.argmax(-1)).sum())

    def scores(self, outputs: torch.Tensor) -> list[float]:
        """The score of each target: p(positive class)."""
        return outputs.float().softmax(-1)[:, 0].tolist()

    def linear_head(self, lm_head: torch.nn.Module) -> tuple[torch.Tensor, torch.Tensor | None] | None:
        """(weight (C, H), bias (C,) or None) when the outputs are `hidden @ weight.T + bias`; else None."""
        return None

    def mlp_head(self) -> dict[str, torch.Tensor] | None:
        """The state dict of Sequential(Linear(H, H), GELU, Linear(H, C)) when the outputs are that MLP; else None."""
        return None


class ClassTokenHead(Head):
    """Logits of reserved class tokens: the LM-head rows of the class tokens only (MCNIG sec 3.3)."""

    def class_rows(self, lm_head: torch.nn.Module) -> tuple[torch.Tensor, torch.Tensor | None]:
        """The LM-head rows of the class tokens (C, H), and their bias (C,) when the LM head has one."""
        bias = getattr(lm_head, "bias", None)
        return lm_head.weight[self.class_ids], None if bias is None else bias[self.class_ids]

    def forward(self, hidden: torch.Tensor, lm_head: torch.nn.Module) -> torch.Tensor:
        return torch.nn.functional.linear(hidden, *self.class_rows(lm_head))  # (P, C)

    def linear_head(self, lm_head: torch.nn.Module) -> tuple[torch.Tensor, torch.Tensor | None]:
        return tuple(t if t is None else t.detach().clone() for t in self.class_rows(lm_head))


class BinaryHead(ClassTokenHead):
    """prm: a target at every step delimiter, <pos>/<neg>; label y in [0, 1] -> (y, 1 - y)."""

    class_fields = ("pos_token", "neg_token")
    label_names = ("positive", "negative")
    help = "a target per step (MCNIG sec 3.3)"

    @classmethod
    def targets(cls, labels: list[float]) -> list[list[float]]:
        for k, y in enumerate(labels, start=1):
            if not 0.0 <= float(y) <= 1.0:  # NaN included
                raise ValueError(f"target {k} is {y}; a {'/'.join(cls.label_names)} target lies in [0, 1]")
        return [[float(y), 1.0 - float(y)] for y in labels]


class OutcomeHead(BinaryHead):
    """orm: one target after the trace (MCNIG sec 3.4), the validator's verdict; a trace too long is skipped."""

    label_source = "outcome"
    help = "one target after the trace (MCNIG sec 3.4)"

    def target_positions(self, separators: list[int]) -> list[int]:
        return separators[-1:]

    def keep(self, positions: list[int], max_length: int) -> list[int] | None:
        return list(range(len(positions))) if all(p < max_length for p in positions) else None


# prm3 label -> class index in (<pos>, <neu>, <neg>)
_THREE_CLASS = {1: 0, 0: 1, -1: 2}


class ThreeClassHead(ClassTokenHead):
    """prm3 (PSPO): <pos>/<neu>/<neg> at every delimiter; labels +1/0/-1 -> one-hot."""

    class_fields = ("pos_token", "neu_token", "neg_token")
    label_names = ("positive", "neutral", "negative")
    label_source = "three_class"
    help = "labels -1/0/+1 (PSPO)"

    @classmethod
    def targets(cls, labels: list[float]) -> list[list[float]]:
        for k, y in enumerate(labels, start=1):
            if y not in _THREE_CLASS:
                raise ValueError(f"target {k} is {y}; a 3-class label is -1, 0 or 1")
        return [[float(c == _THREE_CLASS[int(y)]) for c in range(3)] for y in labels]

    @classmethod
    def check_labels(cls, labels: list[list[float]]) -> None:
        if labels and not any(v == -1 for row in labels for v in row):
            raise ValueError("prm3: no step is labeled -1, so the negative class would never be trained (0/1 "
                             "labels would read as neutral/positive); give -1/0/+1 labels or --neutral-band")


class BradleyTerryHead(Head):
    """bt (PUM sec 3.4, appendix C): U(x, p) = MLP(h) at a prefix's last delimiter, or one bias-free Linear (a bias
    never trains on differences). Batch rows 2i, 2i + 1 are a pair (p_a, p_b) with targets t, 1 - t (eq. 8), each
    row carrying the pair's Bradley-Terry loss of Delta = U_a - U_b (eq. 9); a trace's score is its last U."""

    label_source = "pairs"
    aggregation = "last"
    label_names = ("utility",)
    help = "prefix utility from preference pairs, Bradley-Terry (PUM sec 3.4)"
    VALUE_HEADS = ("mlp", "linear")

    def __init__(self, config: Any, token_id: Callable[[str], int]):
        super().__init__(config, token_id)
        self.value_head = getattr(config, "value_head", "mlp")
        if self.value_head not in self.VALUE_HEADS:
            raise ValueError(f"bt: value_head must be one of {', '.join(self.VALUE_HEADS)}, got {self.value_head!r}")

    def attach(self, model: Any) -> None:
        width = model.config.get_text_config().hidden_size
        if self.value_head == "linear":
            self.value = torch.nn.Sequential(torch.nn.Linear(width, 1, bias=False))
        else:
            self.value = torch.nn.Sequential(torch.nn.Linear(width, width), torch.nn.GELU(),
                                             torch.nn.Linear(width, 1))
            torch.nn.init.zeros_(self.value[-1].bias)
        torch.nn.init.zeros_(self.value[-1].weight)  # Delta = 0 at the start: every pair's loss is log 2

    def linear_head(self, lm_head: torch.nn.Module) -> tuple[torch.Tensor, torch.Tensor | None] | None:
        """The value layer of a `linear` value head (weight (1, H), no bias); None for the MLP."""
        return (self.value[0].weight.detach().clone(), None) if self.value_head == "linear" else None

    def mlp_head(self) -> dict[str, torch.Tensor] | None:
        """The value MLP of an `mlp` value head (Linear-GELU-Linear, appendix C); None for `linear`."""
        return {n: t.detach().clone() for n, t in self.value.state_dict().items()} if self.value_head == "mlp" else None

    def keep(self, positions: list[int], max_length: int) -> list[int] | None:
        """Train at the prefix's last delimiter only; a prefix cut by `max_length` is skipped (with its pair)."""
        return [len(positions) - 1] if positions and positions[-1] < max_length else None

    @classmethod
    def targets(cls, labels: list[float]) -> list[list[float]]:
        for t in labels:
            if not 0.0 <= float(t) <= 1.0:
                raise ValueError(f"Bradley-Terry targets lie in [0, 1], got {t}")
        return [[float(t)] for t in labels]

    def forward(self, hidden: torch.Tensor, lm_head: torch.nn.Module) -> torch.Tensor:
        return self.value(hidden.to(self.value[0].weight.dtype))  # (P, 1)

    def weights(self, groups: list[str]) -> torch.Tensor:
        """Every row (half a pair) the same share: the loss is the mean over the pairs of the batch (eq. 9)."""
        return torch.full((len(groups),), 1.0 / max(1, len(groups)))

    def target_losses(self, outputs: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        if outputs.shape[0] % 2:
            raise ValueError(f"bt: rows come in pairs, got {outputs.shape[0]}")
        delta = outputs[0::2, 0] - outputs[1::2, 0]  # (N,)
        return bradley_terry_loss(delta, targets[0::2, 0]).repeat_interleave(2)  # (2N,)

    def hits(self, outputs: torch.Tensor, targets: torch.Tensor) -> int:
        """Rows of pairs whose predicted label matches: sigma(Delta) > 2/3 -> 1, < 1/3 -> 0, else a tie (0.5)."""
        p = torch.sigmoid(outputs[0::2, 0].float() - outputs[1::2, 0].float())
        predicted = torch.where(p > 2 / 3, 1.0, torch.where(p < 1 / 3, 0.0, 0.5))
        return 2 * int((predicted == targets[0::2, 0].float()).sum())

    def scores(self, outputs: torch.Tensor) -> list[float]:
        """The utility U(x, p) (a real number, not a probability)."""
        return outputs.float()[:, 0].tolist()


HEADS: dict[str, type[Head]] = {"prm": BinaryHead, "orm": OutcomeHead, "prm3": ThreeClassHead, "bt": BradleyTerryHead}


def head_class(kind: str) -> type[Head]:
    if kind not in HEADS:
        raise ValueError(f"unknown reward model kind '{kind}'; choose from {', '.join(HEADS)}")
    return HEADS[kind]


def class_targets(kind: str, labels: list[float]) -> list[list[float]]:
    """Per-target distributions over the classes of the head `kind` (no model needed).
    Example: class_targets("prm3", [1, 0, -1]) -> [[1, 0, 0], [0, 1, 0], [0, 0, 1]]."""
    return head_class(kind).targets(labels)
