import math

import pytest

from prmkit.evaluate.first_error import (
    choose_tau,
    error_correct_f1,
    first_error_label,
    first_error_result,
    first_labeled_wrong,
    first_step_below,
)


def test_labels_and_predictions():
    assert first_error_label([True, False, True]) == 1
    assert first_error_label([True, True]) == -1
    assert first_step_below([0.9, 0.4, 0.8], 0.5) == 1
    assert first_step_below([0.9, 0.5], 0.5) == -1  # strictly below
    assert first_labeled_wrong([1, 0, 0]) == 1 and first_labeled_wrong([1, 1]) == -1


def test_docstring_worked_example():
    scores = [[0.9, 0.4, 0.8], [0.9, 0.9], [0.7, 0.6], [0.3]]
    r = first_error_result(scores, [1, 1, -1, -1], 0.5)
    assert (r.error_accuracy, r.correct_accuracy, r.f1, r.n_error, r.n_correct) == (0.5, 0.5, 0.5, 2, 2)


def test_f1_is_harmonic_mean_and_wrong_step_counts_as_miss():
    r = error_correct_f1([2, 0, -1, -1, 3], [2, 1, -1, -1, -1])  # errors: 1/2 right; correct: 2/3 right
    assert r.error_accuracy == 0.5 and r.correct_accuracy == pytest.approx(2 / 3)
    assert r.f1 == pytest.approx(2 * 0.5 * (2 / 3) / (0.5 + 2 / 3))
    only_errors = error_correct_f1([0], [0])
    assert math.isnan(only_errors.correct_accuracy) and only_errors.f1 == 0.0
    with pytest.raises(ValueError):
        error_correct_f1([0], [0, 1])


def test_choose_tau_maximises_f1_and_generalises_by_threshold():
    scores = [[0.9, 0.2], [0.8, 0.7], [0.6, 0.1, 0.9], [0.95]]
    labels = [1, -1, 1, -1]
    tau, fit = choose_tau(scores, labels)
    assert fit.f1 == 1.0 and 0.2 < tau <= 0.7
    # every tau flags everything (all wrong on correct samples) or nothing: the sweep must beat both ends
    assert first_error_result(scores, labels, 0.0).f1 == 0.0
    assert first_error_result(scores, labels, 1.0).f1 < fit.f1
