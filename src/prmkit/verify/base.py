"""The validator interface V_q : Y -> {0, 1} (MCNIG paper sec 3.1): (problem, answer) -> a `Verdict` that says why."""

from collections.abc import Callable
from dataclasses import dataclass

from prmkit.data.records import Problem

__all__ = ["Validator", "Verdict"]


@dataclass(frozen=True)
class Verdict:
    """V_q(y) and why: `ok` is the boolean outcome, `reason` a one-line explanation (empty when obvious)."""

    ok: bool
    reason: str = ""

    def __bool__(self) -> bool:
        return self.ok


Validator = Callable[[Problem, str], Verdict]

