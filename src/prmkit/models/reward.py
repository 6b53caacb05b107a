"""A reward model on a causal LM (MCNIG sec 3.3): a `Head` over the decoder's hidden states at the step delimiters
of q, r_1, <sep>, ..., r_N, <sep>; its checkpoints; a `StepScorer`."""

from __future__ import annotations

import copy
import json
import os
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import torch

from prmkit.data.outputs import atomic_dir
from prmkit.data.templates import load_template
from prmkit.models.aggregate import AGGREGATIONS
from prmkit.models.device import inference_device
from prmkit.models.heads import HEADS, head_class
from prmkit.models.step_inputs import LocalStepScorer, length_batches
from prmkit.models.stepwise import StepLayout
from prmkit.models.weight_files import check_weight_files

__all__ = ["CONFIG_NAME", "HEAD_WEIGHTS", "RUN_RECORD", "TRAIN_LOG", "RewardModel", "RewardModelConfig",
           "length_batches", "load"]

CONFIG_NAME = "prmkit_reward.json"
HEAD_WEIGHTS = "prmkit_head.pt"  # written only by a head with parameters of its own
RUN_RECORD = "prmkit_run.json"  # what `prmkit train` wrote the checkpoint with (its head kind among it)
TRAIN_LOG = "train_log.json"  # the finished run's record (its model_config.kind)


def _check_declared_head(path: Path, config: RewardModelConfig) -> None:
    """Raise if the head `config` declares is not the one the checkpoint's training run trained."""
    for name, read in ((RUN_RECORD, lambda d: d.get("kind")), (TRAIN_LOG, lambda d: d["model_config"]["kind"])):
        try:
            trained = read(json.loads((path / name).read_text(encoding="utf-8")))
        except (OSError, ValueError, AttributeError, KeyError, TypeError):
            continue
        if trained and trained != config.kind:
            raise ValueError(f"checkpoint {path} declares head '{config.kind}' in {CONFIG_NAME}, but was trained as "
                             f"'{trained}' ({name}): its weights are a '{trained}' model's")


@dataclass
class RewardModelConfig:
    """`prmkit_reward.json`: what a checkpoint needs beyond the HF weights; defaults from the MCNIG paper (sec
    3.3-3.5) and the PSPO paper (3-class head)."""

    kind: str = field(default="prm", metadata={"help": "head, one of " + ", ".join(
        f"{k} ({h.help})" for k, h in HEADS.items()) + "."})
    sep_token: str = field(default="<|prm_sep|>", metadata={"help": "step delimiter <s_req>; added to the vocabulary "
                                                                   "unless it already is one token (the paper picks "
                                                                   "an unused vocabulary token)."})
    pos_token: str = field(default="<|prm_pos|>", metadata={"help": "<s_POS>: the step is correct (label 1)."})
    neg_token: str = field(default="<|prm_neg|>", metadata={"help": "<s_NEG>: the step is incorrect (label 0 / -1)."})
    neu_token: str = field(default="<|prm_neu|>", metadata={"help": "neutral class of prm3 (label 0)."})
    aggregation: str = field(default="prod", metadata={"help": "step scores -> trace score: "
                                                               f"{' | '.join(AGGREGATIONS)} (sec 3.5: product)."})
    prefix_template: str = field(default="prm_prefix", metadata={"help": "templates/<name>.txt, formatted with "
                                                                         "{question}; the steps follow it."})
    value_head: str = field(default="mlp", metadata={"help": "bt only: mlp (PUM appendix C; export-hf writes it "
                                                               "as custom code, trust_remote_code, no vLLM) or "
                                                               "linear (one bias-free layer; exports as a standard "
                                                               "token-classification model, the one for vLLM)."})

    @property
    def class_tokens(self) -> list[str]:
        return [getattr(self, name) for name in head_class(self.kind).class_fields]

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RewardModelConfig:
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})


def _add_rows(model: Any, size: int) -> None:
    """Grow the embeddings; new rows = mean + per-dimension-std noise of the old rows (distinct tokens)."""
    old = model.get_input_embeddings().weight.shape[0]
    model.resize_token_embeddings(size, mean_resizing=False)
    for module in {id(m): m for m in (model.get_input_embeddings(), model.get_output_embeddings())}.values():
        with torch.no_grad():
            w = module.weight
            w[old:] = w[:old].mean(0) + w[:old].std(0) * torch.randn(size - old, w.shape[1], dtype=w.dtype)


class RewardModel(LocalStepScorer):
    """(model, tokenizer, config) with the reserved token ids checked and the head of `config.kind`."""

    def __init__(self, model: Any, tokenizer: Any, config: RewardModelConfig):
        self.tokenizer, self.config = tokenizer, config
        self.sep_id = self._single_id(config.sep_token)
        super().__init__(model, tokenizer, StepLayout(load_template(config.prefix_template), (self.sep_id,)))
        self.target_head = head_class(config.kind)(config, self._single_id)
        self.target_head.attach(model)
        self.class_ids = self.target_head.class_ids
        self.kind, self.default_aggregation = config.kind, config.aggregation  # a StepScorer's optional members

    def limit_batches(self, max_tokens: int, max_batch: int) -> None:
        self.max_tokens, self.max_batch = max_tokens, max_batch

    def check_fits(self, pools: list[Any]) -> None:
        """Raise ValueError naming `file:line` and the first trace with more tokens than the model's context."""
        if not (context := getattr(self.model.config, "max_position_embeddings", None)):
            return
        for pool in pools:
            for t in pool.traces:
                if len(pool.problem.question) + sum(map(len, t.steps)) + 64 <= context:
                    continue  # a token is at least one character: it fits
                n = len(self.encode(pool.problem.question, t.steps)[0])
                if n > context:
                    raise ValueError(f"{pool.origin or 'problem ' + pool.problem.id}: trace {t.id}: {n} tokens, "
                                     f"more than the model's context of {context}: too long for the scorer; shorten it")

    def _single_id(self, token: str) -> int:
        ids = self.tokenizer(token, add_special_tokens=False)["input_ids"]
        if len(ids) != 1:
            raise ValueError(f"reserved token {token!r} must be one token, the tokenizer gives {ids}")
        return ids[0]

    # --- construction and checkpoints -----------------------------------------------------------------
    @classmethod
    def from_base(cls, name_or_path: str, config: RewardModelConfig, dtype: str = "float32") -> RewardModel:
        """Load a base LM (fresh, not the shared cache) and add the reserved tokens it lacks."""
        from prmkit.models.loading import load_pretrained

        model, tokenizer = load_pretrained(name_or_path, dtype)
        vocab = tokenizer.get_vocab()
        if missing := [t for t in [config.sep_token, *config.class_tokens] if t not in vocab]:
            tokenizer.add_special_tokens({"additional_special_tokens": missing})
            _add_rows(model, len(tokenizer))
        if tokenizer.pad_token_id is None:
            tokenizer.pad_token = tokenizer.eos_token
        prm = cls(model, tokenizer, config)
        if config.class_tokens and set(config.class_tokens) <= set(missing):
            prm.neutral_head()
        return prm

    def neutral_head(self, spread: float = 0.1) -> None:
        """Pull the class-token rows of the LM head towards their mean (deviations x `spread`): every step starts
        near p = 1/C (loss ~ln C). Not exactly equal: the hidden states' gradient would then be rounding noise."""
        head = self.model.get_output_embeddings()
        with torch.no_grad():
            rows = head.weight[self.class_ids]  # (C, H)
            head.weight[self.class_ids] = rows.mean(0) + spread * (rows - rows.mean(0))
            if getattr(head, "bias", None) is not None:
                head.bias[self.class_ids] = 0.0

    def truncate_layers(self, keep: int) -> None:
        """Keep the lowest `keep` decoder layers (all of them when it has no more); the config follows."""
        body, cfg = self.model.get_decoder(), self.model.config
        if keep <= 0:
            raise ValueError(f"keep_layers must be at least 1, got {keep}")
        if keep >= len(body.layers):
            return
        body.layers = body.layers[:keep]
        cfg.num_hidden_layers = keep
        if getattr(cfg, "layer_types", None):
            cfg.layer_types = cfg.layer_types[:keep]

    def save_pretrained(self, directory: str | os.PathLike[str]) -> None:
        """Write HF weights + tokenizer (LoRA merged into a copy), the prmkit config and head weights, atomically."""
        model = self.model
        if hasattr(model, "merge_and_unload"):  # a peft model: save plain merged weights, keep training copy
            model = copy.deepcopy(model).merge_and_unload()
        with atomic_dir(directory) as out:
            model.save_pretrained(out)
            self.tokenizer.save_pretrained(out)
            (out / CONFIG_NAME).write_text(json.dumps(asdict(self.config), indent=2) + "\n", encoding="utf-8")
            if state := self.target_head.state_dict():
                torch.save(state, out / HEAD_WEIGHTS)

    @classmethod
    def from_pretrained(cls, directory: str | os.PathLike[str], dtype: str = "float32") -> RewardModel:
        from transformers import AutoModelForCausalLM, AutoTokenizer

        path = Path(directory)
        if not (path / CONFIG_NAME).is_file():
            why = f"no {CONFIG_NAME} in it" if path.is_dir() else "not a directory" if path.exists() else "not found"
            raise FileNotFoundError(f"{directory} is not a reward-model checkpoint ({why}): give a directory written "
                                    "by `prmkit train`")
        config = RewardModelConfig.from_dict(json.loads((path / CONFIG_NAME).read_text(encoding="utf-8")))
        _check_declared_head(path, config)
        check_weight_files(path)  # a cut-short file: one line naming it
        tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
        vocab = tokenizer.get_vocab()
        if missing := [t for t in [config.sep_token, *config.class_tokens] if t not in vocab]:
            raise ValueError(f"checkpoint {path} declares head '{config.kind}', but its tokenizer has no "
                             f"{', '.join(missing)}: its weights are not a '{config.kind}' model's")
        model = AutoModelForCausalLM.from_pretrained(path, dtype=getattr(torch, dtype), local_files_only=True)
        rm = cls(model, tokenizer, config)  # in eval mode
        own, stored = rm.target_head.state_dict(), path / HEAD_WEIGHTS
        if own and not stored.is_file():
            raise ValueError(f"checkpoint {path}: head '{config.kind}' has weights of its own, but {HEAD_WEIGHTS} is "
                             "missing (every trace would score with an untrained head); copy the whole checkpoint "
                             "directory")
        if stored.is_file():
            if not own:
                raise ValueError(f"checkpoint {path} declares head '{config.kind}', which has no weights of its own, "
                                 f"but holds {HEAD_WEIGHTS}: it was trained with another head")
            try:
                rm.target_head.load_state_dict(torch.load(stored, weights_only=True))
            except Exception as e:
                raise ValueError(f"checkpoint {path}: {HEAD_WEIGHTS} does not fit head '{config.kind}' of this model "
                                 f"({str(e).splitlines()[0]})") from None
        return rm.to(inference_device())  # scoring runs on the GPU when there is one (`prmkit.models.device`)

    def to(self, device: str | torch.device) -> RewardModel:
        self.model.to(device)
        self.target_head.to(device)
        return self

    def parameters(self) -> list[torch.nn.Parameter]:
        """The trainable parameters: the model's, then the head's own (none for the class-token heads)."""
        return [p for p in [*self.model.parameters(), *self.target_head.parameters()] if p.requires_grad]

    def train(self, mode: bool = True) -> None:
        self.model.train(mode)
        self.target_head.train(mode)

    # --- inputs ------------------------------------------------------------------------------------------
    def encode(self, question: str, steps: list[str]) -> tuple[list[int], list[int]]:
        """(ids, target positions): the head's choice among the delimiters (all for prm/prm3, the last for orm)."""
        ids, seps = super().encode(question, steps)
        if ids.count(self.sep_id) != len(steps):
            raise AssertionError(f"{ids.count(self.sep_id)} separators for {len(steps)} steps: a step or the "
                                 f"question contains the separator {self.config.sep_token!r}")
        return ids, self.target_head.target_positions(seps)

    # --- forward -----------------------------------------------------------------------------------------
    def head(self, hidden: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        """The head's outputs at `positions` (class logits: rows of the LM head for the class tokens only)."""
        h = hidden[positions[:, 0], positions[:, 1]]  # (P, H)
        return self.target_head(h, self.model.get_output_embeddings())  # (P, C)

    def step_probs(self, items: list[tuple[str, list[str]]]) -> list[list[float]]:
        """p(positive class) at each target of each (question, steps), from one batched forward pass."""
        return self._scores([self.encode(q, steps) for q, steps in items])

    def values(self, input_ids: torch.Tensor, attention_mask: torch.Tensor, positions: torch.Tensor) -> list[float]:
        """The head's score at each target (row, token): p(positive class), a `bt` head's U."""
        self.train(False)
        return self.target_head.scores(self.head(self.hidden(input_ids, attention_mask), positions))


def load(path: str, **options: Any) -> RewardModel:
    """The `reward-model` scorer: a `prmkit train` checkpoint directory of any head; it takes no options."""
    if options:
        raise ValueError(f"scorer 'reward-model' takes no options (got {', '.join(options)}): its checkpoint holds "
                         "its step format")
    return RewardModel.from_pretrained(path)
