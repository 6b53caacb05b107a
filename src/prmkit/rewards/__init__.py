"""Rewards for RL and reranking: TRL-form reward functions built from a spec (`build_rewards`), and the PSPO-WRS
formulas of `prmkit.models.pspo`, re-exported."""

from prmkit.models.pspo import WEIBULL_C, WEIBULL_K, WEIBULL_LAMBDA, adjusted_weibull, pspo_wrs
from prmkit.rewards.completions import completion_steps, completion_text, problem_column, read_problem
from prmkit.rewards.functions import FORMULAS, OutcomeReward, StepScoreReward, terminal_utility
from prmkit.rewards.spec import REWARDS, RewardTerm, Scorers, build_rewards, parse_reward_spec, parse_term

__all__ = ["FORMULAS", "REWARDS", "WEIBULL_C", "WEIBULL_K", "WEIBULL_LAMBDA", "OutcomeReward", "RewardTerm",
           "Scorers", "StepScoreReward", "adjusted_weibull", "build_rewards", "completion_steps", "completion_text",
           "parse_reward_spec", "parse_term", "problem_column", "pspo_wrs", "read_problem", "terminal_utility"]
