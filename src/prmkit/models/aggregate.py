"""Step scores -> one trace score: `prod` (MCNIG sec 3.5), `min`, `mean`, `last`, and PSPO's `geomean` and
`pspo_wrs` (eq. 9-11). Example, (0.9, 0.5, 0.8): prod 0.36, min 0.5, mean 0.7333, last 0.8, geomean 0.7114,
pspo_wrs 0.6969."""

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
    """`AGGREGATIONS[name]` of the step scores; an empty trace scores 0."""
    if name not in AGGREGATIONS:
        raise ValueError(f"unknown aggregation '{name}'; choose from {', '.join(AGGREGATIONS)}")
    return float(AGGREGATIONS[name](step_scores)) if step_scores else 0.0
