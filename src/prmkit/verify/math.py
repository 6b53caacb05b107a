"""Math validator (MCNIG paper sec 3.1): math-verify's `verify(parse(gold), parse(pred))`, gold first (not symmetric).
Its `signal.alarm` timeout works only on the main thread, so the check runs in a daemon thread waited on `timeout` s."""

import functools
import logging
import re
import threading

from prmkit.data.records import Problem
from prmkit.verify.base import Verdict

__all__ = ["math_equal", "verify_math"]

_DOLLARS = re.compile(r"^\s*\$+|\$+\s*$")


def _parsed(text: str) -> list:
    """math-verify's parse of an answer wrapped in `$...$` (once) so its LaTeX extractor anchors on it (`\\boxed{}`
    is kept); when that finds nothing (no LaTeX in it), of the plain text."""
    from math_verify import parse

    inner = _DOLLARS.sub("", text.strip()).strip()
    return parse(f"${inner}$", parsing_timeout=None) or parse(text, parsing_timeout=None)


for _name in ("math_verify.grader", "math_verify.parser"):  # its "timeout is disabled": `math_equal` bounds it
    logging.getLogger(_name).addFilter(lambda record: "Timeout is disabled" not in record.getMessage())


def _check(gold: str, pred: str) -> bool:
    from math_verify import verify

    g, p = _parsed(gold), _parsed(pred)
    return bool(g) and bool(p) and bool(verify(g, p, timeout_seconds=None))


@functools.cache
def _warm() -> None:
    """Import math-verify and run one check (its grammars build on first use) so no timeout counts it."""
    _check("1", "1")


def math_equal(gold: str, pred: str, timeout: float = 5.0) -> Verdict:
    """Whether `pred` is mathematically equal to `gold`, within `timeout` seconds (a timeout is a failure)."""
    _warm()
    box: dict[str, object] = {}

    def work() -> None:
        try:
            box["ok"] = _check(gold, pred)
        except Exception as e:  # a parser crash on odd input is a failed verdict, not an error
            box["error"] = f"{type(e).__name__}: {e}"

    worker = threading.Thread(target=work, daemon=True, name="math-verify")
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        return Verdict(False, f"math-verify timed out after {timeout:g}s")
    if "error" in box:
        return Verdict(False, f"math-verify error: {box['error']}"[:200])
    if box["ok"]:
        return Verdict(True, "equal")
    return Verdict(False, f"{pred.strip()[:80]!r} != {gold.strip()[:80]!r}")


def verify_math(problem: Problem, answer: str) -> Verdict:
    """V_q(y) for a math problem: `problem.answer` is the gold answer y*."""
    if not answer or not answer.strip():
        return Verdict(False, "empty answer")
    return math_equal(problem.answer, answer, float(problem.meta.get("timeout", 5.0)))
