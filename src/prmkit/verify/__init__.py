"""Answer validators V_q(y) -> Verdict (MCNIG paper, sec. 3.1), one per domain: its `Domain.validator`
(`prmkit.generate.domains.DOMAINS`); `VALIDATORS` is a view of them.

>>> verify_answer(Problem("p", "2+2?", "4"), "$4$")
Verdict(ok=True, reason='equal')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor

from prmkit.data.records import Problem
from prmkit.verify.base import DomainField, Validator, Verdict
from prmkit.verify.math import math_equal

__all__ = [
    "VALIDATORS",
    "Validator",
    "Verdict",
    "get_validator",
    "math_equal",
    "verify_answer",
    "verify_answers",
]

VALIDATORS: Mapping[str, Validator] = DomainField("validator")  # domain -> validator, a view of DOMAINS


def get_validator(domain: str) -> Validator:
    """The validator of `domain`: its `Domain.validator` (`prmkit.generate.domains.DOMAINS`)."""
    from prmkit.generate.domains import domain as named  # generate imports verify: read the domains on use

    return named(domain).validator


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
