"""`ProcessGRPOTrainer`: TRL's `GRPOTrainer` plus step-level process advantages on each step's tokens.

TRL computes one group-normalised advantage per completion in `_generate_and_score_completions` and its loss
accepts advantages of shape (B,) or (B, T) (`_compute_loss`: "to support subclasses that provide advantages with
shape (B, T)"). This subclass lets TRL do everything (generation, rewards, the GRPO advantage A_GRPO, KL, the
clipped loss) and only replaces the returned `advantages` (B,) by the (B, T) tensor

    A[i, token] = A_GRPO[i] + coef * A_process[i, segment of the token]        (PUM appendix D.4)

With `process=None` the advantages stay TRL's. Logged every step (TRL's metrics, averaged per logging step):
`adv/grpo_abs` and `adv/process_abs` (mean |A_GRPO| and mean |A_process| over completion tokens, the latter
without `coef`) and `adv/segment_<t>` (mean process advantage of the t-th segment, t = 1, 2, ...).
"""

from __future__ import annotations

from typing import Any

import torch
from trl import GRPOTrainer

from prmkit.rewards.completions import completion_text, read_problem
from prmkit.rl.advantages import token_advantages
from prmkit.rl.process import ProcessAdvantage
from prmkit.train.trainer import RunClock

__all__ = ["ProcessGRPOTrainer"]


class ProcessGRPOTrainer(RunClock, GRPOTrainer):
    """`GRPOTrainer(..., process=ProcessAdvantage(...))`; every other argument is GRPOTrainer's. The dataset needs
    the column `problem` (JSON of a prmkit `Problem`: its question is what the scorer reads). Its log lines carry the
    run's training seconds (`RunClock`)."""

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
        width = mask.shape[1]
        segments = [s + [-1] * (width - len(s)) for s in batch.token_segments]
        tokens = token_advantages(grpo.tolist(), segments, batch.segment_advantages, self.process.coef)
        out["advantages"] = torch.tensor(tokens, dtype=grpo.dtype, device=grpo.device)  # (B, T)
        self._log_process(grpo, mask, segments, batch.segment_advantages)
        return out

    def _log_process(self, grpo: torch.Tensor, mask: torch.Tensor, segments: list[list[int]],
                     advantages: list[list[float]]) -> None:
        mode = "train" if self.model.training else "eval"
        process = torch.tensor([[adv[s] if s >= 0 else 0.0 for s in segs] for segs, adv in
                                zip(segments, advantages, strict=True)], device=mask.device)  # (B, T)
        tokens = mask.sum().clamp(min=1)
        self._metrics[mode]["adv/grpo_abs"].append((grpo.abs()[:, None] * mask).sum().item() / tokens.item())
        self._metrics[mode]["adv/process_abs"].append((process.abs() * mask).sum().item() / tokens.item())
        for t in range(max((len(a) for a in advantages), default=0)):
            values = [a[t] for a in advantages if len(a) > t]
            self._metrics[mode][f"adv/segment_{t + 1}"].append(sum(values) / len(values))
