"""`rule`: an untrained rule verifier, each step's own arithmetic evaluated, knowing nothing of the problem."""

from typing import Any

from prmkit.data.bench_checker import arithmetic_error, computations
from prmkit.models.scorer import StepScorer

__all__ = ["RuleScorer", "load", "rule_score"]


def rule_score(step: str) -> float:
    """1.0 when every `expr = result` in `step` is right arithmetic (none: 1.0), else 0.0; not carried forward.
    Example: "3 + 4 = 7." -> 1.0; "7 * 2 = 15." -> 0.0."""
    return 0.0 if any(arithmetic_error(expr, result) for expr, result, _ in computations(step)) else 1.0


class RuleScorer(StepScorer):
    """Step score = whether the step's own arithmetic is right."""

    def score_steps(self, question: str, step_lists: list[list[str]]) -> list[list[float]]:
        return [[rule_score(step) for step in steps] for steps in step_lists]


def load(path: str = "", **options: Any) -> RuleScorer:
    """The rule verifier; it reads nothing, so `path` must be empty or `-`."""
    if path not in ("", "-"):
        raise ValueError(f"scorer 'rule' reads no model or file, got '{path}'; write 'rule:' (or --model -)")
    if options:
        raise ValueError(f"scorer 'rule' takes no options, got {', '.join(sorted(options))}")
    return RuleScorer()
