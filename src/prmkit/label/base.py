"""The labeler interface and its cost record. A complete example labeler: tests/label/step_length.py; optional
members (`check`, `claims`, `cost_reference`) are read through `prmkit.label.registry`."""

from collections.abc import Iterable, Iterator, Mapping, Set
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from prmkit.data.records import Pool, StepLabels
from prmkit.data.settings import check_limits
from prmkit.models.loading import DEFAULT_MODEL

__all__ = ["LabelCost", "Labeled", "Labeler", "LabelerBase", "LabelerModelConfig"]


@dataclass
class LabelerModelConfig:
    """The model of every labeler that loads one: one `--model` sets it for all the labelers of a run."""

    model: str = field(default=DEFAULT_MODEL, metadata={"help": "the model of every labeler of the run (IG/MCNIG "
                                                                "scorer, Math-Shepherd/OmegaPRM completer): "
                                                                "embedded model name or local HF directory"})

    def __post_init__(self) -> None:
        check_limits(self)


@dataclass
class LabelCost:
    """What one `Labeler.label` call cost: tokens read (padding excluded) and generated, measured; per method the
    paper's count (MCNIG appendix A, `prmkit.label.complexity`); wall seconds (set by the recipe)."""

    tokens_read: int = 0
    tokens_generated: int = 0
    paper_tokens: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0


@dataclass
class Labeled:
    """The result of one `Labeler.label` call: the records of each method and what the call cost."""

    records: dict[str, list[StepLabels]]
    cost: LabelCost


class Labeler(Protocol):
    """A step labeler serving `methods` (names in `LABELERS`); built as `cls(config, methods)`."""

    config_class: ClassVar[type]
    methods: tuple[str, ...]

    def params(self, method: str) -> dict[str, Any]:
        """The settings that change `method`'s scores, stored in each record's `params`."""

    def skip_reason(self, pool: Pool, method: str) -> str | None:
        """Why `method` cannot label `pool` (e.g. "no incorrect answer"), or None; cheap, runs no model."""

    def unreadable(self, pool: Pool, ids: Set[str]) -> dict[str, str]:
        """{trace id: why} for the traces of `pool` in `ids` too long for this labeler; cheap, runs no model."""

    def label_stream(self, items: Iterable[tuple[Pool, Mapping[str, Set[str]]]]) -> Iterator[Labeled]:
        """One Labeled per (pool, todo) item, in order: the records of the traces in `todo[method]` for each
        method, in the pool's trace order. The work of several pools may be batched."""

    def label(self, pool: Pool, todo: Mapping[str, Set[str]]) -> Labeled:
        """`label_stream` of one pool (`LabelerBase` gives it)."""


class LabelerBase:
    """Gives `label` (one pool) from `label_stream`."""

    def label_stream(self, items: Iterable[tuple[Pool, Mapping[str, Set[str]]]]) -> Iterator[Labeled]:
        raise NotImplementedError

    def label(self, pool: Pool, todo: Mapping[str, Set[str]]) -> Labeled:
        return next(iter(self.label_stream([(pool, todo)])))

