"""Answer validators V_q(y) -> Verdict (MCNIG paper, sec. 3.1), one per domain, chosen through `VALIDATORS`.

>>> verify_answer(Problem("p", "2+2?", "4"), "$4$")
Verdict(ok=True, reason='equal')
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

from prmkit.data.records import Problem
from prmkit.verify.base import Validator, Verdict
from prmkit.verify.choice import verify_choice
from prmkit.verify.math import math_equal, verify_math
from prmkit.verify.python import verify_python
from prmkit.verify.sql import verify_sql

__all__ = [
    "VALIDATORS",
    "Validator",
    "Verdict",
    "get_validator",
    "math_equal",
    "verify_answer",
    "verify_answers",
]

VALIDATORS: dict[str, Validator] = {
    "math": verify_math,
    "python": verify_python,
    "sql": verify_sql,
    "choice": verify_choice,
}


def get_validator(domain: str) -> Validator:
    try:
        return VALIDATORS[domain]
    except KeyError:
        raise ValueError(f"no validator for domain '{domain}'; known: {', '.join(VALIDATORS)}") from None


def verify_answer(problem: Problem, answer: str | None) -> Verdict:
    """V_q(y) with the validator of `problem.domain`; a missing answer is a failed verdict."""
    if answer is None:
        return Verdict(False, "no extractable answer")
    return get_validator(problem.domain)(problem, answer)


def verify_answers(pairs: Sequence[tuple[Problem, str | None]], workers: int | None = None) -> list[Verdict]:
    """Validate many (problem, answer) pairs in parallel threads (code runs in sandboxed subprocesses)."""
    import os

    workers = workers or os.cpu_count() or 1
    if workers <= 1 or len(pairs) <= 1:
        return [verify_answer(p, a) for p, a in pairs]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(lambda pa: verify_answer(*pa), pairs))
