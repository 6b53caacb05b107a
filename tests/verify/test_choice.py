from __future__ import annotations

import pytest

from prmkit.data.records import Problem
from prmkit.domains import verify_answer
from prmkit.verify.choice import choice_index

OPTIONS = ["yes", "no", "maybe"]


@pytest.mark.parametrize(
    ("text", "index"),
    [
        ("A", 0),
        ("(b)", 1),
        ("C)", 2),
        ("Option 2", 1),
        ("3", 2),
        ("the answer is B", 1),
        ("No.", 1),
        ("$\\text{maybe}$", 2),
        ("D", None),
        ("4", None),
        ("I think it is maybe", 2),
        ("", None),
    ],
)
def test_choice_index(text, index):
    assert choice_index(text, OPTIONS) == index


def test_verify_choice_against_letter_and_text_gold():
    for gold in ("B", "no", "2"):
        p = Problem("q", "?", gold, domain="choice", meta={"options": OPTIONS})
        assert verify_answer(p, "(B)").ok
        assert verify_answer(p, "no").ok
        assert not verify_answer(p, "A").ok
    assert not verify_answer(Problem("q", "?", "A", domain="choice"), "A").ok  # no options
