"""Rewards for RL and reranking: formulas on step scores (PSPO-WRS) and TRL-style reward functions over them.

The PSPO-WRS formulas live in `prmkit.models.pspo` (they are also the `pspo_wrs` step-score aggregation of
`models.aggregate.AGGREGATIONS`); this package re-exports them.
Reward functions (`f(prompts, completions, completion_ids, **columns)`, TRL's GRPO form) are built from a spec
string by `build_rewards("outcome+pspo_wrs:runs/prm")`; see `rewards.spec`.
"""

from prmkit.models.pspo import WEIBULL_C, WEIBULL_K, WEIBULL_LAMBDA, adjusted_weibull, pspo_wrs
from prmkit.rewards.completions import completion_steps, completion_text, problem_column, read_problem
from prmkit.rewards.functions import FORMULAS, OutcomeReward, StepScoreReward, terminal_utility
from prmkit.rewards.spec import REWARDS, RewardTerm, Scorers, build_rewards, parse_reward_spec, parse_term

__all__ = ["FORMULAS", "REWARDS", "WEIBULL_C", "WEIBULL_K", "WEIBULL_LAMBDA", "OutcomeReward", "RewardTerm",
           "Scorers", "StepScoreReward", "adjusted_weibull", "build_rewards", "completion_steps", "completion_text",
           "parse_reward_spec", "parse_term", "problem_column", "pspo_wrs", "read_problem", "terminal_utility"]
