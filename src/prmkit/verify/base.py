"""The validator interface V_q : Y -> {0, 1} of the MCNIG paper (sec. 3.1, "Answer Validation").

A validator takes the problem q (its ground truth and whatever it needs to check an answer: unit tests, a
database, the options) and one extracted candidate answer y, and returns a `Verdict`: the boolean V_q(y) plus
a short human-readable reason, so that a failed check says *why* (wrong value, timeout, test failure, ...).

`DomainField` is a read-only view of one field of every registered domain (`prmkit.generate.domains.DOMAINS`):
`prmkit.verify.VALIDATORS`, `prmkit.generate.extract.EXTRACTORS` and `prmkit.generate.prompts.STOP` are such views,
kept where they always were. It reads the registry on use, as the domains are built from the validators here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from prmkit.data.records import Problem

__all__ = ["DomainField", "Validator", "Verdict"]


@dataclass(frozen=True)
class Verdict:
    """V_q(y) and why: `ok` is the boolean outcome, `reason` a one-line explanation (empty when obvious)."""

    ok: bool
    reason: str = ""

    def __bool__(self) -> bool:
        return self.ok


Validator = Callable[[Problem, str], Verdict]


class DomainField(Mapping[str, Any]):
    """The view `name -> DOMAINS[name].<field>` (looked up on every access: it never disagrees with `DOMAINS`, and
    a domain added there shows here). `DomainField("validator")["math"]` is `verify_math`."""

    def __init__(self, field: str):
        self.field = field

    @staticmethod
    def _domains() -> Mapping[str, Any]:
        from prmkit.generate.domains import DOMAINS  # generate imports verify: read the registry on use

        return DOMAINS

    def __getitem__(self, name: str) -> Any:
        return getattr(self._domains()[name], self.field)

    def __iter__(self) -> Iterator[str]:
        return iter(self._domains())

    def __len__(self) -> int:
        return len(self._domains())

    def __repr__(self) -> str:
        return f"DomainField({self.field!r}, {dict(self)!r})"
