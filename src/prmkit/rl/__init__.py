"""Reward shaping for policy optimisation: PSPO-WRS (adjusted Weibull over the step count)."""

from prmkit.rl.pspo import adjusted_weibull, pspo_wrs

__all__ = ["adjusted_weibull", "pspo_wrs"]
