"""The `rule` scorer: each step's own arithmetic, on hand-written steps."""

from __future__ import annotations

import pytest

from prmkit.models.scorer_spec import load_scorer_spec


def test_rule_scores_each_steps_own_arithmetic():
    scorer = load_scorer_spec("rule:")
    steps = ["3 + 4 = 7.", "3 + 4 = 8.", "Then she goes home.", "7 × 2 = 14 and 14 - 5 = 9.", "7 x 2 = 15.",
             "20 / 4 = 5", "9 - 2 + 3 = 10 apples.", "9 - 2 + 3 = 4.", "6 / 0 = 1."]
    assert scorer.score_steps("q", [steps]) == [[1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0]]


def test_a_right_step_after_a_wrong_one_scores_one_and_the_aggregation_sinks_the_trace(tmp_path):
    scorer = load_scorer_spec("rule:-")
    chain = ["15 - 6 = 9.", "9 + 12 = 20.", "20 + 1 = 21.", "The answer is 21."]
    misread = ["15 - 7 = 8.", "8 + 12 = 20."]  # right arithmetic on a number the question does not state
    assert scorer.score_steps("any", [chain, misread]) == [[1.0, 0.0, 1.0, 1.0], [1.0, 1.0]]


def test_rule_reads_no_path_and_takes_no_options():
    with pytest.raises(ValueError, match="reads no model or file"):
        load_scorer_spec("rule:runs/prm")
    with pytest.raises(ValueError, match="takes no options"):
        load_scorer_spec("rule:,x=1")
