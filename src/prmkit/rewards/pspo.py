"""PSPO-WRS reward shaping (Li et al., "PSPO*", sec "PSPO-WRS", eq. 9-11), as an RL reward.

The formulas live in `prmkit.models.pspo` (they are also the `pspo_wrs` step-score aggregation, registered in
`models.aggregate.AGGREGATIONS`); this module re-exports them for the rewards:

    R(p_1..p_n) = (prod_j p_j)^(1/n) * h(n),   h the adjusted Weibull density of the step count (eq. 9)
"""

from __future__ import annotations

from prmkit.models.pspo import WEIBULL_C, WEIBULL_K, WEIBULL_LAMBDA, adjusted_weibull, pspo_wrs

__all__ = ["WEIBULL_C", "WEIBULL_K", "WEIBULL_LAMBDA", "adjusted_weibull", "pspo_wrs"]
