"""Step scores -> one trace score. MCNIG sec 3.5 multiplies the step predictions (`prod`); the others are
common alternatives (Lightman et al. use `prod`; `min` and `last` appear in Math-Shepherd / PRM800K work;
`geomean` and `pspo_wrs` are PSPO's accumulation and its Weibull-shaped reward, eq. 9-11, see `models.pspo`).

Worked example, steps (0.9, 0.5, 0.8): prod 0.36, min 0.5, mean 0.7333, last 0.8, geomean 0.7114,
pspo_wrs 0.7114 * h(3) = 0.7114 * 0.9797 = 0.6969.
An ORM has one "step", so every aggregation but `pspo_wrs` returns its score. An empty trace scores 0.

`AGGREGATIONS` is the one registry of them: adding an aggregation is one function plus one line
`AGGREGATIONS["name"] = f` (`f(step_scores) -> float`, called on non-empty lists); every verb's
`--aggregation` (score, evaluate bok, search) and the RL formulas read it.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from prmkit.models.pspo import geometric_mean, pspo_wrs

__all__ = ["AGGREGATIONS", "aggregate", "geometric_mean"]

AGGREGATIONS: dict[str, Callable[[list[float]], float]] = {
    "prod": math.prod,
    "min": min,
    "mean": lambda p: sum(p) / len(p),
    "last": lambda p: p[-1],
    "geomean": geometric_mean,
    "pspo_wrs": pspo_wrs,  # geometric mean times the adjusted Weibull of the step count (PSPO eq. 9-11)
}


def aggregate(step_scores: list[float], name: str = "prod") -> float:
    if name not in AGGREGATIONS:
        raise ValueError(f"unknown aggregation '{name}'; choose from {', '.join(AGGREGATIONS)}")
    return float(AGGREGATIONS[name](step_scores)) if step_scores else 0.0
