"""The search record: one JSON line per problem, the trace a method chose and its cost (docs/formats.md)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from prmkit.data.records import RecordError

__all__ = ["SearchResult", "SearchStats"]


@dataclass
class SearchResult:
    problem_id: str
    method: str  # "beam" | "bon"
    steps: list[str]  # the chosen trace
    answer: str | None
    correct: bool
    score: float
    majority_answer: str | None
    majority_correct: bool
    candidates: int  # finished traces the choice was made among
    answered: int  # of them, with an extractable answer
    samples: int  # sampled continuations
    stages: int  # generation calls this problem took part in (best-of-N: 1)
    tokens_generated: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Any) -> SearchResult:
        if not isinstance(data, dict):
            raise RecordError(f"SearchResult: expected a JSON object, got {type(data).__name__}")
        try:
            return cls(**data)
        except TypeError as e:
            raise RecordError(f"SearchResult: {e}") from None


@dataclass
class SearchStats:
    """Counts of one search run (across problems): generation calls, tokens, sampling and scoring seconds."""

    problems: int = 0
    generation_calls: int = 0
    samples: int = 0
    tokens_generated: int = 0
    tokens_read: int = 0  # prompt + prefix tokens prefilled, once per prefix and generation call
    sampling_seconds: float = 0.0
    scoring_seconds: float = 0.0
    prefixes_per_call: list[int] = field(default_factory=list)  # prefixes (live beams) in each generation call

    def add_call(self, prefixes: int, rolled: Any) -> None:
        """Count one generation call over `prefixes` prefixes whose rollouts are `rolled` (a `RolloutStats`)."""
        self.generation_calls += 1
        self.prefixes_per_call.append(prefixes)
        self.samples += rolled.rollouts
        self.tokens_generated += rolled.tokens_generated
        self.tokens_read += rolled.tokens_read
        self.sampling_seconds += rolled.seconds

    @property
    def tokens_per_second(self) -> float:
        return self.tokens_generated / self.sampling_seconds if self.sampling_seconds else 0.0
