"""Adapters from prmkit reward models and rewards to policy-optimisation trainers (none yet).

The reward formulas themselves live in `prmkit.rewards` (e.g. `prmkit.rewards.pspo_wrs`).
"""

__all__: list[str] = []
