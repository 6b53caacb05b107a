"""The TRL-form reward functions on worked examples (no model: a validator and a toy StepScorer)."""

import json
import math

import pytest

from prmkit.data.records import Problem
from prmkit.rewards import (
    REWARDS,
    Scorers,
    adjusted_weibull,
    build_rewards,
    completion_steps,
    parse_reward_spec,
    problem_column,
)


class ShortSteps:
    """Each step scores 1 / (1 + its length in characters); counts calls."""

    def __init__(self) -> None:
        self.calls = 0

    def score_steps(self, question, step_lists):
        self.calls += 1
        return [[1 / (1 + len(s)) for s in steps] for steps in step_lists]


PROBLEM = problem_column(Problem("p1", "2+5?", "7", meta={"timeout": 60.0}))  # math-verify: slow under load
COMPLETIONS = ["ab [STEP] abcd", "5 + 2 = 7. [STEP] The answer is $7$.", "no steps here, answer $8$", "  "]


def rewards(spec, scorer=None):
    scorers = Scorers({"toy": scorer or ShortSteps()})
    funcs, weights = build_rewards(spec, scorers)
    return [f(prompts=["q"] * 4, completions=COMPLETIONS, completion_ids=None, problem=[PROBLEM] * 4)
            for f in funcs], weights


def test_outcome_is_the_validator_on_the_extracted_answer():
    logged = {}
    (out,), _ = rewards("outcome")
    assert out == [0.0, 1.0, 0.0, 0.0]
    (func,), _ = build_rewards("outcome")
    func(prompts=["q"] * 4, completions=COMPLETIONS, problem=[PROBLEM] * 4, log_metric=logged.__setitem__)
    assert logged == {"accuracy": 0.25, "reasoning_steps": pytest.approx((2 + 2 + 1 + 0) / 4)}


def test_step_score_rewards_on_the_worked_example():
    (prod, mn, geo, wrs, pum), _ = rewards("prm_prod:toy+prm_min:toy+prm_geomean:toy+pspo_wrs:toy+pum:toy")
    assert prod[0] == pytest.approx(1 / 15) and mn[0] == pytest.approx(0.2)
    assert geo[0] == pytest.approx(math.sqrt(1 / 15))
    assert wrs[0] == pytest.approx(math.sqrt(1 / 15) * adjusted_weibull(2)) and wrs[0] == pytest.approx(0.2293, 1e-3)
    assert pum[0] == pytest.approx(0.2)  # terminal utility: the last prefix's value
    assert wrs[2] == pytest.approx(1 / 26 * adjusted_weibull(1))  # one step of 25 characters
    assert [r[3] for r in (prod, mn, geo, wrs, pum)] == [0.0] * 5  # no steps: 0, and no scorer call


def test_scorer_called_once_per_question_and_never_for_empty_completions():
    scorer = ShortSteps()
    rewards("pspo_wrs:toy", scorer)
    assert scorer.calls == 1


def test_completion_steps_cut_at_the_next_fewshot_item_and_read_messages():
    assert completion_steps("a. [STEP] b.\nQuestion: c [STEP] d") == ["a.", "b."]
    assert completion_steps([{"role": "assistant", "content": "x [STEP] y"}]) == ["x", "y"]


def test_spec_parsing_weights_and_errors():
    terms = parse_reward_spec("outcome + 0.25*pspo_wrs:runs/prm")
    assert [(t.name, t.model, t.weight) for t in terms] == [("outcome", None, 1.0), ("pspo_wrs", "runs/prm", 0.25)]
    _, weights = rewards("outcome+0.5*prm_min:toy")
    assert weights == [1.0, 0.5]
    with pytest.raises(ValueError, match="unknown name 'prm_max'"):
        parse_reward_spec("outcome+prm_max:x")
    with pytest.raises(ValueError, match="needs a model"):
        build_rewards("pspo_wrs")
    with pytest.raises(ValueError, match="not a number"):
        parse_reward_spec("a*outcome")
    with pytest.raises(ValueError, match="empty"):
        parse_reward_spec(" + ")
    assert set(REWARDS) >= {"outcome", "prm_prod", "prm_min", "prm_geomean", "pspo_wrs", "pum"}


def test_problem_column_round_trips_meta():
    p = Problem("x", "q", "1", None, "math", {"timeout": 2.0})
    assert json.loads(problem_column(p))["meta"] == {"timeout": 2.0}
