"""A toy domain for the tests, "upper": the answer is the last word written in capitals, and it is right when it is
the gold word in any case. One `Domain` here plus one registry line where it is used:

    monkeypatch.setitem(DOMAINS, "upper", TOY)
"""

from __future__ import annotations

import re

from prmkit.data.records import Problem
from prmkit.domains import Domain
from prmkit.verify.base import Verdict

_CAPITALS = re.compile(r"\b[A-Z]{2,}\b")

TEMPLATE = """Answer with one word in capitals. End each step with [STEP].

Question: What colour is the sky on a clear day?
Answer: The sky scatters blue light. [STEP] The answer is BLUE.

Question: {question}
Answer:"""


def last_capital_word(text: str) -> str | None:
    """The last word of two or more capital letters: "a RED [STEP] then BLUE." -> "BLUE"; None without one."""
    found = _CAPITALS.findall(text)
    return found[-1] if found else None


def same_word(problem: Problem, answer: str) -> Verdict:
    """Right when `answer` is the gold word, case ignored."""
    ok = answer.strip().lower() == problem.answer.strip().lower()
    return Verdict(ok, "same word" if ok else f"{answer!r} is not {problem.answer!r}")


TOY = Domain("upper", TEMPLATE, ("\nQuestion:",), last_capital_word, same_word)
