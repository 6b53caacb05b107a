"""PSPO-WRS reward shaping (Li et al., "PSPO*", sec "PSPO-WRS", eq. 9-11).

The accumulation F = (prod_j p_j)^(1/n) (the geometric mean, eq. 10) removes the length trend of a product of
step probabilities; the adjusted Weibull density h(n) of the number of steps n (eq. 9) shapes it:

    h(n) = C * (k / lam) * (n / lam)^(k - 1) * exp(-(n / lam)^k),   C = 10.735, k = 1.5, lam = 8 (Figure 4)
    R(p_1..p_n) = F * h(n)

Worked example: h(8) = 10.735 * 0.1875 * 1 * e^-1 = 0.7405; steps (0.9, 0.4) give F = 0.6 and h(2) = 0.8882,
so R = 0.5329. h peaks at n = lam * ((k - 1) / k)^(1/k) = 3.846 steps, where C makes h = 1.000.
"""

from __future__ import annotations

import math

from prmkit.models.aggregate import geometric_mean

__all__ = ["WEIBULL_C", "WEIBULL_K", "WEIBULL_LAMBDA", "adjusted_weibull", "pspo_wrs"]

WEIBULL_C, WEIBULL_K, WEIBULL_LAMBDA = 10.735, 1.5, 8.0  # the paper's settings (Figure 4)


def adjusted_weibull(n: float, c: float = WEIBULL_C, k: float = WEIBULL_K, lam: float = WEIBULL_LAMBDA) -> float:
    """h(n) = C * (k/lam) * (n/lam)^(k-1) * exp(-(n/lam)^k); h(0) = 0 for k > 1."""
    if n < 0:
        raise ValueError(f"number of steps must be >= 0, got {n}")
    return c * (k / lam) * (n / lam) ** (k - 1) * math.exp(-((n / lam) ** k))


def pspo_wrs(step_scores: list[float], c: float = WEIBULL_C, k: float = WEIBULL_K,
             lam: float = WEIBULL_LAMBDA) -> float:
    """Geometric mean of the n step scores times h(n); 0 for an empty trace or any zero score."""
    if not step_scores:
        return 0.0
    return geometric_mean(step_scores) * adjusted_weibull(len(step_scores), c, k, lam)
