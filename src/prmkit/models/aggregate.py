"""Step scores -> one trace score. MCNIG sec 3.5 multiplies the step predictions (`prod`); the others are
common alternatives (Lightman et al. use `prod`; `min` and `last` appear in Math-Shepherd / PRM800K work).

Worked example, steps (0.9, 0.5, 0.8): prod 0.36, min 0.5, mean 0.7333, last 0.8, geomean 0.7114.
An ORM has one "step", so every aggregation returns its score. An empty trace scores 0.

`AGGREGATIONS` is open: `prmkit.rewards` registers `pspo_wrs` into it when imported (models/ does not import
rewards/), so a verb that offers reward-shaped aggregations imports `prmkit.rewards` first.
"""

from __future__ import annotations

import math
from collections.abc import Callable

__all__ = ["AGGREGATIONS", "aggregate", "geometric_mean"]


def geometric_mean(p: list[float]) -> float:
    """(prod_j p_j)^(1/n), computed in log space; 0 when any score is <= 0 (PSPO eq. 10's accumulation F).

    Worked example: (0.9, 0.4) -> sqrt(0.36) = 0.6.
    """
    return 0.0 if min(p) <= 0.0 else math.exp(sum(math.log(x) for x in p) / len(p))


AGGREGATIONS: dict[str, Callable[[list[float]], float]] = {
    "prod": math.prod,
    "min": min,
    "mean": lambda p: sum(p) / len(p),
    "last": lambda p: p[-1],
    "geomean": geometric_mean,
}


def aggregate(step_scores: list[float], name: str = "prod") -> float:
    if name not in AGGREGATIONS:
        raise ValueError(f"unknown aggregation '{name}'; choose from {', '.join(AGGREGATIONS)}")
    return float(AGGREGATIONS[name](step_scores)) if step_scores else 0.0
