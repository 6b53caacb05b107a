"""PSPO-WRS reward shaping (Li et al., "PSPO*", sec "PSPO-WRS", eq. 9-11): a trace score from step scores.

The accumulation F = (prod_j p_j)^(1/n) (the geometric mean, eq. 10) removes the length trend of a product of
step probabilities; the adjusted Weibull density h(n) of the number of steps n (eq. 9) shapes it:

    h(n) = C * (k / lam) * (n / lam)^(k - 1) * exp(-(n / lam)^k),   C = 10.735, k = 1.5, lam = 8 (Figure 4)
    R(p_1..p_n) = F * h(n)

Worked example: h(8) = 10.735 * 0.1875 * 1 * e^-1 = 0.7405; steps (0.9, 0.4) give F = 0.6 and h(2) = 0.8882,
so R = 0.5329. h peaks at n = lam * ((k - 1) / k)^(1/k) = 3.846 steps, where C makes h = 1.000.

These are step-score aggregations (`models.aggregate.AGGREGATIONS`: `geomean`, `pspo_wrs`) as well as RL rewards
(`prmkit.rewards` re-exports them), so they live here, below both.
"""

from __future__ import annotations

import math

__all__ = ["WEIBULL_C", "WEIBULL_K", "WEIBULL_LAMBDA", "adjusted_weibull", "geometric_mean", "pspo_wrs"]

WEIBULL_C, WEIBULL_K, WEIBULL_LAMBDA = 10.735, 1.5, 8.0  # the paper's settings (Figure 4)


def geometric_mean(p: list[float]) -> float:
    """(prod_j p_j)^(1/n), computed in log space; 0 when any score is <= 0 (PSPO eq. 10's accumulation F).

    Worked example: (0.9, 0.4) -> sqrt(0.36) = 0.6.
    """
    return 0.0 if min(p) <= 0.0 else math.exp(sum(math.log(x) for x in p) / len(p))


def adjusted_weibull(n: float, c: float = WEIBULL_C, k: float = WEIBULL_K, lam: float = WEIBULL_LAMBDA) -> float:
    """h(n) = C * (k/lam) * (n/lam)^(k-1) * exp(-(n/lam)^k); h(0) = 0 for k > 1 (PSPO eq. 9)."""
    if n < 0:
        raise ValueError(f"number of steps must be >= 0, got {n}")
    return c * (k / lam) * (n / lam) ** (k - 1) * math.exp(-((n / lam) ** k))


def pspo_wrs(step_scores: list[float], c: float = WEIBULL_C, k: float = WEIBULL_K,
             lam: float = WEIBULL_LAMBDA) -> float:
    """Geometric mean of the n step scores times h(n) (PSPO eq. 11); 0 for an empty trace or any zero score."""
    if not step_scores:
        return 0.0
    return geometric_mean(step_scores) * adjusted_weibull(len(step_scores), c, k, lam)
