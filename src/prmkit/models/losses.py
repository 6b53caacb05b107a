"""Reward-model losses: MCNIG sec 3.3's grouped cross-entropy and PUM's Bradley-Terry loss."""

from collections import Counter

import torch

__all__ = ["bradley_terry_loss", "grouped_cross_entropy", "soft_cross_entropy", "step_weights"]


def soft_cross_entropy(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Per-target CE against a distribution: logits (P, C), targets (P, C) -> (P,)."""
    return -(targets * logits.float().log_softmax(-1)).sum(-1)


def step_weights(groups: list[str]) -> torch.Tensor:
    """Weight 1/(M * N_m) of each target, so that sum(weights * CE) is the paper's L (works across micro-batches)."""
    counts = Counter(groups)
    return torch.tensor([1.0 / (len(counts) * counts[g]) for g in groups])


def grouped_cross_entropy(logits: torch.Tensor, targets: torch.Tensor, groups: list[str]) -> torch.Tensor:
    """MCNIG sec 3.3's L = 1/M * sum_m 1/N_m * sum_i CE_i^(m) (the N_m steps of problem m, the M problems of the
    batch): logits (P, C), targets (P, C) rows summing to 1 (soft allowed), groups (P,) the problem of each target.
    Example: one problem, logits (0, 0) at two steps, labels 1 and 0.5 -> log 2 = 0.693."""
    return (soft_cross_entropy(logits, targets) * step_weights(groups)).sum()


def bradley_terry_loss(delta: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """PUM's pairwise loss (pum_paper sec 3.4 eq. 9, appendix C) per pair: L = -[t log sigma(Delta) + (1 - t)
    log(1 - sigma(Delta))], Delta = U(x, p_a) - U(x, p_b), t = 1, 0.5 (tie) or 0; (N,), (N,) -> (N,).
    Example: Delta = 0 -> 0.693 for any t; Delta = 2: t = 1 -> 0.127, t = 0.5 -> 1.127."""
    return torch.nn.functional.binary_cross_entropy_with_logits(delta.float(), target.float(), reduction="none")
