"""The one answer normaliser (`answer_key`) and the answer sets C_q, W_q of a problem (MCNIG paper sec 3.1)."""

import re
from collections.abc import Iterable
from decimal import Decimal, InvalidOperation
from fractions import Fraction

from prmkit.data.records import Pool, Trace

__all__ = ["answer_key", "answer_sets", "distinct_answers"]

_STRIP = re.compile(r"^[\s$\\(]*|[\s$.)]*$")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")  # 1,000,000 -> 1000000; (1,2) and [1,25] keep their commas
_FRAC = re.compile(r"^(-?)\\?d?frac\{(-?\d+)\}\{(\d+)\}$")  # \frac{1}{2}, \dfrac{1}{2} -> 1/2


def answer_key(answer: str) -> str:
    """Canonical key: exact value for numbers and simple fractions, else whitespace-normalised lower text.
    `1,000` = `1000.0` = `$1000` = `\\boxed{1000}` -> "1000"; `\\frac{1}{2}` = `0.5` -> "1/2"; `(1,2)` != `12`."""
    text = re.sub(r"^\s*\\boxed\{(.*)\}\s*$", r"\1", answer)
    text = _STRIP.sub("", _THOUSANDS.sub("", text).replace("\\$", "$")).strip()
    text = _FRAC.sub(r"\1\2/\3", text)
    try:
        return str(Fraction(text) if re.fullmatch(r"-?\d+/\d+", text) else Fraction(Decimal(text)))
    except (InvalidOperation, ValueError, ZeroDivisionError, OverflowError):  # not a finite number
        return " ".join(text.lower().split())


def answer_sets(pool: Pool) -> tuple[list[str], list[int], list[int]]:
    """(distinct answers, indices of C_q, indices of W_q) (MCNIG paper sec 3.1); answers[0] is y*. From y*,
    the traces with a verdict, `meta["correct_answers"]` and `["incorrect_answers"]`; one per `answer_key`."""
    answers: list[str] = []
    keys: dict[str, int] = {}
    correct: set[int] = set()
    incorrect: set[int] = set()

    def add(answer: str, is_correct: bool) -> None:
        k = answer_key(answer)
        if k not in keys:
            keys[k] = len(answers)
            answers.append(answer.strip())
        (correct if is_correct else incorrect).add(keys[k])

    add(pool.problem.answer, True)
    for t in pool.traces:
        if t.answer is not None and t.answer.strip() and t.correct is not None:
            add(t.answer, t.correct)
    for a in pool.problem.meta.get("correct_answers", []):
        add(a, True)
    for a in pool.problem.meta.get("incorrect_answers", []):
        add(a, False)
    incorrect -= correct  # an answer equivalent to a correct one is correct
    return answers, sorted(correct), sorted(incorrect)


def distinct_answers(traces: Iterable[Trace]) -> tuple[list[str], list[str]]:
    """(C, W): the distinct extracted answers of correct / incorrect traces, one surface form per `answer_key`
    (the first seen), in first-seen order. Traces without an answer are left out."""
    correct: dict[str, str] = {}
    wrong: dict[str, str] = {}
    for t in traces:
        if t.answer is not None and t.answer.strip():
            (correct if t.correct else wrong).setdefault(answer_key(t.answer), t.answer)
    return list(correct.values()), list(wrong.values())
