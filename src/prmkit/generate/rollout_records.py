"""The rollout record: one JSON line per prefix with its K validated continuations (docs/generate_verify.md)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from prmkit.data.records import RecordError

__all__ = ["Continuation", "Rollout"]


@dataclass
class Continuation:
    """One sampled continuation: its text, its steps (split on [STEP]), its extracted answer and verdict."""

    text: str
    steps: list[str]
    answer: str | None
    correct: bool
    reason: str  # the validator's reason, e.g. "equal", "no extractable answer"
    tokens_generated: int
    stopped_at: str | None = None  # the stop string that ended it ("[STEP]": a one-step expansion), else None


@dataclass
class Rollout:
    """K continuations after one prefix; `tokens_read` = prompt + prefix tokens, read once for all K (None when
    the backend has no tokenizer)."""

    prefix_id: str  # <trace_id>@<n>, or <problem_id>@0 for the no-prefix baseline
    problem_id: str
    prefix_steps: int  # n
    seed: int  # the prefix's seed; continuation k samples with row_seed(seed, k)
    tokens_read: int | None
    continuations: list[Continuation] = field(default_factory=list)

    @property
    def solved(self) -> int:
        return sum(c.correct for c in self.continuations)

    @property
    def solve_rate(self) -> float:
        """The Monte Carlo estimate of q(x, prefix): the fraction of continuations that are correct."""
        return self.solved / len(self.continuations) if self.continuations else 0.0

    @property
    def tokens_generated(self) -> int:
        return sum(c.tokens_generated for c in self.continuations)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Any) -> Rollout:
        if not isinstance(data, dict):
            raise RecordError(f"Rollout: expected a JSON object, got {type(data).__name__}")
        try:
            conts = [Continuation(**c) for c in data["continuations"]]
            record = cls(**{**data, "continuations": conts})
        except (KeyError, TypeError) as e:
            raise RecordError(f"Rollout: {e}") from None
        if not isinstance(record.prefix_id, str) or not isinstance(record.prefix_steps, int):
            raise RecordError("Rollout: prefix_id must be a string and prefix_steps an integer")
        return record
