"""`rule`: an untrained rule verifier: each step's own arithmetic evaluated, knowing nothing of the problem.

A step scores 1.0 when every computation written in it (`a op b = c`, chains `a + b - c = d`, `×`/`x`/`÷`; the
bench checker's parser `prmkit.data.bench_checker.computations`) is right arithmetic (`data.arith.evaluate`), and
0.0 when one is wrong or cannot be evaluated; a step without a computation scores 1.0. Each step is judged on its
own, not carried forward: a right step after a wrong one scores 1.0, and the aggregation (`min`, `prod`) makes
one wrong step sink the trace. Unlike the `truth` oracle it cannot see a wrong number read from the question, a
right computation on a wrong value, or a wrong answer line.

    >>> RuleScorer().score_steps("any question", [["3 + 4 = 7.", "7 * 2 = 15.", "15 - 1 = 14.", "So 14."]])
    [[1.0, 0.0, 1.0, 1.0]]

Spec: `rule:` (no path; `rule:-` alike), or `--scorer rule --model -`.
"""

from __future__ import annotations

from typing import Any

from prmkit.data.bench_checker import arithmetic_error, computations
from prmkit.models.scorer import StepScorer

__all__ = ["RuleScorer", "load", "rule_score"]


def rule_score(step: str) -> float:
    """1.0 when every `expr = result` in `step` is right arithmetic (none: 1.0), else 0.0."""
    return 0.0 if any(arithmetic_error(expr, result) for expr, result, _ in computations(step)) else 1.0


class RuleScorer(StepScorer):
    """Step score = whether the step's own arithmetic is right (module doc)."""

    def score_steps(self, question: str, step_lists: list[list[str]]) -> list[list[float]]:
        return [[rule_score(step) for step in steps] for steps in step_lists]


def load(path: str = "", **options: Any) -> RuleScorer:
    """The rule verifier; it reads nothing, so `path` must be empty or `-`."""
    if path not in ("", "-"):
        raise ValueError(f"scorer 'rule' reads no model or file, got '{path}'; write 'rule:' (or --model -)")
    if options:
        raise ValueError(f"scorer 'rule' takes no options, got {', '.join(sorted(options))}")
    return RuleScorer()
