"""Reward functions in TRL's form, `f(prompts, completions, completion_ids, **columns) -> list[float | None]`; a
completion without steps gets 0, never None, so GRPO's group baseline sees every sample.

Worked example, step scores (1/3, 1/5): prm_prod 1/15 = 0.0667, prm_min 0.2, prm_geomean sqrt(1/15) = 0.2582,
pspo_wrs 0.2582 * h(2) = 0.2582 * 0.8882 = 0.2293, pum (terminal utility U(x, p_N)) 0.2."""

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from prmkit.domains import extract_answer, verify_answer
from prmkit.models.aggregate import aggregate
from prmkit.models.pspo import pspo_wrs
from prmkit.models.scorer import StepScorer, score_items
from prmkit.rewards.completions import completion_steps, completion_text, read_problem

__all__ = ["OutcomeReward", "StepScoreReward", "terminal_utility"]


class OutcomeReward:
    """V_q(y) of the problem's validator on the completion's answer: 1.0 correct, else 0.0; logs `accuracy` and
    `reasoning_steps` through TRL's `log_metric` when given."""

    __name__ = "outcome"

    def __call__(self, prompts: Sequence[Any], completions: Sequence[Any], completion_ids: Any = None,
                 problem: Sequence[str] = (), **columns: Any) -> list[float | None]:
        if len(problem) != len(completions):
            raise ValueError("the outcome reward needs the dataset column 'problem' (one per completion)")
        rewards, steps = [], []
        for completion, value in zip(completions, problem, strict=True):
            p = read_problem(value)
            answer = extract_answer(p.domain, completion_text(completion, p.domain))
            rewards.append(1.0 if verify_answer(p, answer).ok else 0.0)
            steps.append(len(completion_steps(completion, p.domain)))
        if log := columns.get("log_metric"):
            log("accuracy", sum(rewards) / len(rewards))
            log("reasoning_steps", sum(steps) / len(steps))
        return rewards


def terminal_utility(step_scores: list[float]) -> float:
    """PUM's score of a complete response (PUM sec 4.1, appendix D.2): the utility U(x, p_N) of its last prefix."""
    return float(step_scores[-1])


class StepScoreReward:
    """`formula(step scores)` of each completion, all of a batch scored at once (`score_items`) against the problem's
    question; completions without steps get 0."""

    def __init__(self, name: str, scorer: StepScorer, formula: Callable[[list[float]], float]):
        self.__name__, self.scorer, self.formula = name, scorer, formula

    def __call__(self, prompts: Sequence[Any], completions: Sequence[Any], completion_ids: Any = None,
                 problem: Sequence[str] = (), **columns: Any) -> list[float | None]:
        if len(problem) != len(completions):
            raise ValueError(f"the {self.__name__} reward needs the dataset column 'problem' (one per completion)")
        problems = [read_problem(v) for v in problem]
        steps = [completion_steps(c, p.domain) for c, p in zip(completions, problems, strict=True)]
        rewards: list[float | None] = [0.0] * len(completions)
        todo = [i for i, s in enumerate(steps) if s]
        for k, scores in score_items(self.scorer, [(problems[i].question, steps[i]) for i in todo]):
            rewards[todo[k]] = float(self.formula(scores)) if scores else 0.0
        return rewards


# name -> trace score of the step scores (`AGGREGATIONS`' 0 for an empty trace)
FORMULAS: dict[str, Callable[[list[float]], float]] = {
    "prm_prod": partial(aggregate, name="prod"),
    "prm_min": partial(aggregate, name="min"),
    "prm_geomean": partial(aggregate, name="geomean"),
    "pspo_wrs": pspo_wrs,  # PSPO eq. 9-11: geometric mean x adjusted Weibull of the step count
    "pum": terminal_utility,  # PUM: the utility of the complete response
}
