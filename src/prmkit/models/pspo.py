"""PSPO-WRS reward shaping (Li et al., "PSPO*", sec "PSPO-WRS", eq. 9-11): a trace score from step scores, used as
an aggregation and an RL reward."""

import math

__all__ = ["WEIBULL_C", "WEIBULL_K", "WEIBULL_LAMBDA", "adjusted_weibull", "geometric_mean", "pspo_wrs"]

WEIBULL_C, WEIBULL_K, WEIBULL_LAMBDA = 10.735, 1.5, 8.0  # the paper's settings (Figure 4)


def geometric_mean(p: list[float]) -> float:
    """F = (prod_j p_j)^(1/n) in log space (PSPO eq. 10); 0 when any score is <= 0. Example: (0.9, 0.4) -> 0.6."""
    return 0.0 if min(p) <= 0.0 else math.exp(sum(math.log(x) for x in p) / len(p))


def adjusted_weibull(n: float, c: float = WEIBULL_C, k: float = WEIBULL_K, lam: float = WEIBULL_LAMBDA) -> float:
    """h(n) = C * (k/lam) * (n/lam)^(k-1) * exp(-(n/lam)^k) (PSPO eq. 9, Figure 4's C, k, lam); h(0) = 0 for k > 1.
    Example: h(8) = 0.7405; h peaks at n = 3.846 with h = 1.000."""
    if n < 0:
        raise ValueError(f"number of steps must be >= 0, got {n}")
    return c * (k / lam) * (n / lam) ** (k - 1) * math.exp(-((n / lam) ** k))


def pspo_wrs(step_scores: list[float], c: float = WEIBULL_C, k: float = WEIBULL_K,
             lam: float = WEIBULL_LAMBDA) -> float:
    """R = F * h(n) (PSPO eq. 11); 0 for an empty trace or any zero score. Example: (0.9, 0.4) -> 0.6 * 0.8882 =
    0.5329."""
    return geometric_mean(step_scores) * adjusted_weibull(len(step_scores), c, k, lam) if step_scores else 0.0
