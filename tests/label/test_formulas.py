"""The paper formulas on worked examples, without a model."""

import numpy as np
import pytest

from prmkit.label.complexity import information_tokens
from prmkit.label.information_gain import information_gain
from prmkit.label.mcnig import mcnig, net_information
from prmkit.label.threshold import balanced_accuracy, cot_scores, sweep_threshold


def test_information_gain_worked_example():
    assert information_gain([-9.0, -7.5, -2.0]) == [1.5, 7.0]


def test_information_tokens_appendix_a_worked_example():
    # |q| + sum|r_i| = 20 + 3 * 10, N = 3, answers of 2 and 3 tokens: 50 + (3 + 1) * 5
    assert information_tokens(50, 3, [2, 3]) == 70
    assert information_tokens(12, 0, [4]) == 16  # no step: the question and I_0 only
    with pytest.raises(ValueError):
        information_tokens(10, 2, [-1])


def test_mcnig_worked_example_both_references():
    info = [[-5, -4], [-3, -4], [-1, -6]]  # rows i = 0..2, columns answers a (correct), b (incorrect)
    assert net_information(info, [0], [1]) == [-1, 1, 5]
    assert mcnig(info, [0], [1], reference="step0") == [2, 6]
    assert mcnig(info, [0], [1], reference="previous") == [2, 4]


def test_mcnig_max_vs_mean_aggregation():
    info = [[-2, -9, -1, -7], [-1, -3, -4, -2]]  # C = {0, 1}, W = {2, 3}
    assert mcnig(info, [0, 1], [2, 3], "max") == [(-1 - -2) - (-2 - -1)]
    assert mcnig(info, [0, 1], [2, 3], "mean") == pytest.approx([(-2 - -3) - (-5.5 - -4)])
    with pytest.raises(ValueError, match="incorrect"):
        mcnig(info, [0, 1], [], "max")


def test_threshold_sweep_finds_separating_tau():
    scores = [[1.0, 5.0], [-2.0, 0.5], [3.0, 2.0], [-1.0]]
    correct = [True, False, True, False]
    assert list(cot_scores(scores)) == [1.0, -2.0, 3.0, np.inf]
    sw = sweep_threshold(scores, correct, exclude_final=True)
    # the single-step CoT has no considered step, so it is always predicted correct: best is 0.75
    assert sw.balanced_accuracy == pytest.approx(0.75) and -2.0 <= sw.tau < 1.0
    sw_all = sweep_threshold(scores, correct, exclude_final=False)
    assert sw_all.balanced_accuracy == 1.0 and -1.0 <= sw_all.tau < 1.0


def test_balanced_accuracy_definition():
    pred = np.array([True, True, False, False])
    truth = np.array([True, False, False, False])
    assert balanced_accuracy(pred, truth) == pytest.approx((1 / 1 + 2 / 3) / 2)
