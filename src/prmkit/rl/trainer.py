"""`ProcessGRPOTrainer`: TRL's `GRPOTrainer` plus step-level process advantages on each step's tokens."""

from typing import Any

import torch
from trl import GRPOTrainer

from prmkit.rewards.completions import completion_text, read_problem
from prmkit.rl.advantages import token_advantages
from prmkit.rl.process import ProcessAdvantage
from prmkit.train.trainer import RunClock

__all__ = ["ProcessGRPOTrainer"]


class ProcessGRPOTrainer(RunClock, GRPOTrainer):
    """`GRPOTrainer(..., process=ProcessAdvantage(...))`: TRL does generation, rewards, A_GRPO, KL and the loss, and its
    (B,) advantages become (B, T): A[i, token] = A_GRPO[i] + coef * A_process[i, segment of the token] (PUM appendix
    D.4); `process=None` keeps TRL's. The dataset needs the column `problem` (a prmkit `Problem`'s JSON)."""

    def __init__(self, *args: Any, process: ProcessAdvantage | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.process = process

    def _generate_and_score_completions(self, inputs: list[dict[str, Any]]) -> dict[str, Any]:
        out = super()._generate_and_score_completions(inputs)
        if self.process is None:
            return out
        grpo = out["advantages"]  # (B,)
        mask = out["completion_mask"].bool()  # (B, T)
        ids = [row[m].tolist() for row, m in zip(out["completion_ids"], mask, strict=True)]
        problems = [read_problem(x["problem"]) for x in inputs]
        texts = [completion_text(self.processing_class.decode(r, skip_special_tokens=True), p.domain)
                 for r, p in zip(ids, problems, strict=True)]
        batch = self.process.batch(self.processing_class, ids, texts, [p.question for p in problems],
                                   [p.id for p in problems])
        segments = [s + [-1] * (mask.shape[1] - len(s)) for s in batch.token_segments]  # padded to (B, T)
        tokens = token_advantages(grpo.tolist(), segments, batch.segment_advantages, self.process.coef)
        out["advantages"] = torch.tensor(tokens, dtype=grpo.dtype, device=grpo.device)  # (B, T)
        self._log_process(grpo, mask, segments, batch.segment_advantages)
        return out

    def _log_process(self, grpo: torch.Tensor, mask: torch.Tensor, segments: list[list[int]],
                     advantages: list[list[float]]) -> None:
        """adv/grpo_abs, adv/process_abs: mean |A_GRPO| and |A_process| (without coef) per completion token;
        adv/segment_<t>: the mean process advantage of segment t."""
        mode = "train" if self.model.training else "eval"
        process = torch.tensor([[adv[s] if s >= 0 else 0.0 for s in segs] for segs, adv in
                                zip(segments, advantages, strict=True)], device=mask.device)  # (B, T)
        tokens = mask.sum().clamp(min=1)
        self._metrics[mode]["adv/grpo_abs"].append((grpo.abs()[:, None] * mask).sum().item() / tokens.item())
        self._metrics[mode]["adv/process_abs"].append((process.abs() * mask).sum().item() / tokens.item())
        for t in range(max((len(a) for a in advantages), default=0)):
            values = [a[t] for a in advantages if len(a) > t]
            self._metrics[mode][f"adv/segment_{t + 1}"].append(sum(values) / len(values))
