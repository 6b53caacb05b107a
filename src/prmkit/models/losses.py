"""The PRM objective of MCNIG sec 3.3: cross-entropy over the class-token logits at delimiters only,

    L = 1/M * sum_m 1/N_m * sum_i CE_i^(m),

averaged over the N_m steps of problem m, then over the M problems of the batch. Targets may be soft:
a label y in [0, 1] is the distribution (y, 1 - y) over (<pos>, <neg>).

Worked example: one problem, two steps with logits (pos, neg) = (0, 0) and labels 1 and 0.5:
CE = log 2 for both, so L = log 2 = 0.693.
"""

from __future__ import annotations

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
    """L for one batch: logits (P, C), targets (P, C) rows summing to 1, groups (P,) the problem of each target."""
    return (soft_cross_entropy(logits, targets) * step_weights(groups)).sum()


def bradley_terry_loss(delta: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """PUM's pairwise loss (pum_paper sec 3.4 eq. 9, appendix C), per pair:

        L = -[t log sigma(Delta) + (1 - t) log(1 - sigma(Delta))],   Delta = U(x, p_a) - U(x, p_b),

    with t = 1 (p_a preferred), 0.5 (tie), 0 (p_b preferred). delta (N,), target (N,) -> (N,).

    Worked example: Delta = 0 gives log 2 = 0.693 for any t; Delta = 2, t = 1: log(1 + e^-2) = 0.127;
    Delta = 2, t = 0.5: 0.5 * 0.127 + 0.5 * 2.127 = 1.127 (a tie is pulled back towards Delta = 0).
    """
    return torch.nn.functional.binary_cross_entropy_with_logits(delta.float(), target.float(), reduction="none")
