"""Q of step prefixes from prover rollouts (PAV progress, Math-Shepherd's soft estimate) on the bigram step policy,
which from any prefix writes words and steps until its answer $7$."""

import pytest

from prmkit.data.records import Problem
from prmkit.rewards.spec import Scorers
from prmkit.rl.config import RLConfig
from prmkit.rl.rollout_values import RolloutValues
from prmkit.rl.run import _process

PROBLEMS = [Problem("p7", "Tom has 7 cats. How many?", "7"), Problem("p8", "Tom has 8 cats. How many?", "8")]


def test_rollout_values_are_the_fraction_of_right_rollouts(step_policy_dir):
    values = RolloutValues(step_policy_dir, PROBLEMS, k=4, max_new_tokens=64, chat=False, seed=0)
    steps = [["cat dog", "sun $7$"], ["dog", "cat", "sun $7$"]]
    right = values.score_steps(PROBLEMS[0].question, steps)
    # every rollout of this policy ends with $7$: Q = 1 after each proper prefix, the last step its own verdict
    assert right == [[1.0, 1.0], [1.0, 1.0, 1.0]]
    assert values.score_steps(PROBLEMS[1].question, steps) == [[0.0, 0.0], [0.0, 0.0, 0.0]]  # 7 is never 8
    # rollouts of 2 tokens cannot reach the answer: Q = 0 after each proper prefix; the last step is still its verdict
    short = RolloutValues(step_policy_dir, PROBLEMS, k=4, max_new_tokens=2, chat=False, seed=0)
    assert short.score_steps(PROBLEMS[0].question, steps) == [[0.0, 1.0], [0.0, 0.0, 1.0]]
    with pytest.raises(ValueError, match="not one of the run's training problems"):
        values.score_steps("another question", steps)


def test_process_spec_builds_rollout_values_from_the_training_problems(step_policy_dir):
    config = RLConfig(process=f"progress:rollouts:{step_policy_dir},k=2,max_new_tokens=16,chat=false")
    process = _process(config, Scorers(), PROBLEMS)
    assert process.name == "progress" and isinstance(process.scorer, RolloutValues)
    assert process.scorer.labeler.config.k == 2 and set(process.scorer.problems) == {p.question for p in PROBLEMS}
