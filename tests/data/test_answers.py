"""The one answer normaliser (`prmkit.data.answers`): the same rule for MCNIG's answer sets, generation and voting."""

import pytest

from helpers import pool_dict
from prmkit.data import Pool, Trace
from prmkit.data.answers import answer_key, answer_sets, distinct_answers

SAME = [
    ("1,000", "1000.0"), ("1000", "$1000"), ("1,000,000", "1e6"), ("\\frac{1}{2}", "0.5"), ("\\dfrac{1}{2}", "1/2"),
    ("\\boxed{7}", "$7"), ("\\boxed{\\dfrac{3}{4}}", "3/4"), ("-5", "-5.00"), ("-1,250", "-1250"), ("7.", "7"),
    ("\\$12", "12"), (" Paris ", "paris"),
]
APART = [("(1,2)", "12"), ("[1,25]", "125"), ("inf", "-inf"), ("-5", "5"), ("1/2", "2"), ("0.5", "5")]


@pytest.mark.parametrize(("a", "b"), SAME)
def test_equal_answers_share_a_key(a, b):
    assert answer_key(a) == answer_key(b)


@pytest.mark.parametrize(("a", "b"), APART)
def test_distinct_answers_keep_distinct_keys_and_never_raise(a, b):
    assert answer_key(a) != answer_key(b)


def test_keys_are_canonical_values():
    assert [answer_key(a) for a in ("1,000", "0.5", "-3", "inf", "Infinity")] == ["1000", "1/2", "-3", "inf",
                                                                                   "infinity"]


def test_answer_sets_dedupe_by_value_and_keep_gold_first():
    pool = Pool.from_dict(pool_dict("p", "q", "1000", [
        (["s"], "1,000", True), (["s"], "$1000.0", False), (["s"], "12", False), (["s"], "12.00", False),
        (["s"], "7/2", False), (["s"], "3.5", False)]))
    answers, correct, incorrect = answer_sets(pool)
    assert answers == ["1000", "12", "7/2"] and correct == [0] and incorrect == [1, 2]
    assert answer_key("\\boxed{42}") == answer_key("42.0")


@pytest.mark.parametrize(("a", "b"), [("\\frac{1}{2}", "0.5"), ("\\boxed{\\dfrac{3}{4}}", "3/4"), ("1,000,000", "1e6")])
def test_answer_key_equates_equal_values(a, b):
    assert answer_key(a) == answer_key(b)


@pytest.mark.parametrize(("a", "b"), [("(1,2)", "12"), ("[1,25]", "125"), ("inf", "-inf")])
def test_answer_key_keeps_distinct_answers_apart_and_never_raises(a, b):
    assert answer_key(a) != answer_key(b)


def test_distinct_answers_group_by_value_in_first_seen_order():
    traces = [Trace(f"p/{k}", "p", ["s"], a, c) for k, (a, c) in
              enumerate([("1,000", True), ("1000.0", True), ("12", False), (None, False), ("12.00", False),
                         ("7", False)])]
    assert distinct_answers(traces) == (["1,000"], ["12", "7"])
