"""Reward formulas on step scores (PSPO-WRS now; GRPO advantages later).

Importing this package registers its trace-level rewards as step-score aggregations, so that
`prmkit score/evaluate --aggregation pspo_wrs` can use them (models/ never imports rewards/).
"""

from prmkit.models.aggregate import AGGREGATIONS
from prmkit.rewards.pspo import WEIBULL_C, WEIBULL_K, WEIBULL_LAMBDA, adjusted_weibull, pspo_wrs

__all__ = ["WEIBULL_C", "WEIBULL_K", "WEIBULL_LAMBDA", "adjusted_weibull", "pspo_wrs"]

AGGREGATIONS["pspo_wrs"] = pspo_wrs  # geometric mean times the adjusted Weibull of the step count (PSPO)
