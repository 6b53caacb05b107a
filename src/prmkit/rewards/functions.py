"""Reward functions in TRL's form, `f(prompts, completions, completion_ids, **columns) -> list[float | None]`.

Each is a thin adapter: a validator (`outcome`) or a `StepScorer` plus a formula over its step scores. The columns
they read: `problem` (JSON of a `Problem`, see `rewards.completions`), and TRL's `log_metric` when present.
A completion without steps gets the formula's value for an empty trace (0), never None, so that GRPO's group
baseline sees every sample.

Worked example (the ShortSteps scorer of the tests, each step scores 1 / (1 + its length)): the completion
"ab [STEP] abcd" has steps ("ab", "abcd") with scores (1/3, 1/5):
    prm_prod 1/15 = 0.0667, prm_min 0.2, prm_geomean sqrt(1/15) = 0.2582,
    pspo_wrs 0.2582 * h(2) = 0.2582 * 0.8882 = 0.2293, pum (terminal utility U(x, p_N)) 0.2.
"""

from __future__ import annotations

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
    """V_q(y) of the problem's validator on the completion's extracted answer: 1.0 correct, 0.0 otherwise.

    Logs `accuracy` (the batch's fraction correct) and `reasoning_steps` (mean steps per completion) through TRL's
    `log_metric` when the trainer passes it."""

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
    """`formula(step scores)` of each completion's steps, scored by a `StepScorer` against the problem's question.

    All completions of a batch go to the scorer at once (`score_items`: one call per question, or batched across
    questions by a `BatchStepScorer`); completions without steps get 0 without a scorer call."""

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
