"""First-error identification, the ProcessBench protocol (Zheng et al., 2024, sec 2 and 4.1): a sample's label is
the index of its first wrong step (-1: none); a scorer predicts the first step scoring below tau."""

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["FirstErrorResult", "choose_tau", "error_correct_f1", "first_error_label", "first_error_result",
           "first_labeled_wrong", "first_step_below"]


def first_error_label(step_correct: Sequence[bool]) -> int:
    """Index of the first wrong step, -1 when all are right: [True, False, True] -> 1; [True] -> -1."""
    return next((i for i, ok in enumerate(step_correct) if not ok), -1)


def first_step_below(scores: Sequence[float], tau: float) -> int:
    """Predicted first error: the first step whose score is < tau, or -1. ([0.9, 0.4, 0.8], 0.5) -> 1."""
    return next((i for i, s in enumerate(scores) if s < tau), -1)


def first_labeled_wrong(labels: Sequence[int]) -> int:
    """Predicted first error from binary step labels (1 = right, 0 = wrong): [1, 0, 0] -> 1; [1, 1] -> -1."""
    return first_error_label([bool(v) for v in labels])


@dataclass
class FirstErrorResult:
    """ProcessBench figures on one split (accuracies and F1 as fractions in [0, 1])."""

    error_accuracy: float
    correct_accuracy: float
    f1: float
    n_error: int
    n_correct: int


def error_correct_f1(predictions: Sequence[int], labels: Sequence[int]) -> FirstErrorResult:
    """ProcessBench sec 4.1: error accuracy (erroneous samples whose prediction == label), correct accuracy (correct
    samples predicted -1) and F1 = 2ec / (e + c); NaN accuracy for an absent kind, F1 then 0. Example (tau 0.5):
    scores [0.9, 0.4, 0.8] label 1 -> 1 (right); [0.9, 0.9] label 1 -> -1 (wrong); [0.7, 0.6] label -1 -> -1
    (right); [0.3] label -1 -> 0 (wrong): e = c = 1/2, F1 = 0.5."""
    if len(predictions) != len(labels):
        raise ValueError(f"{len(predictions)} predictions for {len(labels)} labels")
    err = [p == y for p, y in zip(predictions, labels, strict=True) if y >= 0]
    ok = [p == -1 for p, y in zip(predictions, labels, strict=True) if y < 0]
    e = sum(err) / len(err) if err else float("nan")
    c = sum(ok) / len(ok) if ok else float("nan")
    f1 = 2 * e * c / (e + c) if err and ok and e + c > 0 else 0.0
    return FirstErrorResult(e, c, f1, len(err), len(ok))


def first_error_result(scores: Sequence[Sequence[float]], labels: Sequence[int], tau: float) -> FirstErrorResult:
    """The figures when every sample's prediction is `first_step_below(scores, tau)`."""
    return error_correct_f1([first_step_below(s, tau) for s in scores], labels)


def _candidates(scores: Sequence[Sequence[float]]) -> list[float]:
    """Every tau that changes a prediction: each distinct score, and one above the largest (all flagged)."""
    values = sorted({float(s) for row in scores for s in row})
    return [*values, values[-1] + max(1.0, abs(values[-1])) * 1e-9 + 1e-12] if values else [0.0]


def choose_tau(scores: Sequence[Sequence[float]], labels: Sequence[int]) -> tuple[float, FirstErrorResult]:
    """The tau (among `_candidates`) with the highest F1 on these samples, the smallest on ties; and its figures. Choose
    on one split, report `first_error_result` on another. Example: [[0.9, 0.2]] label 1 and [[0.8, 0.7]] label -1:
    tau = 0.7, F1 = 1."""
    fits = ((tau, first_error_result(scores, labels, tau)) for tau in _candidates(scores))
    return max(fits, key=lambda fit: fit[1].f1)  # the first of equal maxima: the smallest tau
