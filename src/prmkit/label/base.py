"""The labeler interface: what a step labeler gives the one labeling recipe (`prmkit.label.recipe`).

A labeler turns the traces of one pool (a problem and its candidate CoTs) into `StepLabels` records, for one
or several methods at once (IG and MCNIG share one forward pass per problem). Everything else is the recipe's:
resuming an interrupted run, refusing to extend a file made with other settings (compared through
`params`), choosing the threshold, the sweep plot and the report. A new labeler is one file with a class
that has the members below, plus one line in `prmkit.label.registry.LABELERS`:

    class StepLength(LabelerBase):         # tests/label/step_length.py is a complete example
        config_class = StepLengthConfig    # its settings dataclass: every field becomes a `prmkit label` flag
        def __init__(self, config, methods): ...
        def params(self, method): ...      # what the records store of the settings that change their scores
        def skip_reason(self, pool, method): ...   # "why not this pool" (no model run), or None
        def unreadable(self, pool, ids): ... # {trace id: why} of traces too long to read (no model run)
        def label_stream(self, items): ... # (pool, todo) pairs -> one Labeled (records per method, LabelCost)
                                           # each, in order; the work of many pools may be batched together

`LabelerBase` gives `label(pool, todo)`, one pool through `label_stream`.

Optional members, read through `prmkit.label.registry` by every recipe that runs labelers (`prmkit bench`), so a
labeler joins them with no edit there: `check(config)`, a classmethod of cheap checks run before anything is
written (a rollout model takes the run's template, PUM's students exist); `claims`, {method: methods it is
claimed to beat or match}, each pair compared when both ran; `cost_reference`, the method whose tokens per trace
the others' costs are put over. The cost ledger is the `LabelCost` each call returns. A labeler that loads a model
takes it from the `model` field of `LabelerModelConfig`, which its config inherits.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Set
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from prmkit.data.records import Pool, StepLabels
from prmkit.data.settings import check_limits
from prmkit.models.loading import DEFAULT_MODEL

__all__ = ["LabelCost", "Labeled", "Labeler", "LabelerBase", "LabelerModelConfig"]


@dataclass
class LabelerModelConfig:
    """The model of every labeler that loads one: their configs inherit this field, so one `--model` flag (the CLI
    makes one flag per field name), `model=` or `model:` key sets it for all the labelers of the run. Labelers that
    need different models are separate runs (`--method mcnig --model A`, then `--method math-shepherd --model B`)."""

    model: str = field(default=DEFAULT_MODEL, metadata={"help": "the model of every labeler of the run (IG/MCNIG "
                                                                "scorer, Math-Shepherd/OmegaPRM completer): "
                                                                "embedded model name or local HF directory"})

    def __post_init__(self) -> None:
        check_limits(self)


@dataclass
class LabelCost:
    """What one `Labeler.label` call cost, measured, next to the paper's count for the same records.

    tokens_read: tokens fed to the model (prompt, steps and scored answers; padding excluded), measured.
    tokens_generated: tokens the model sampled (rollout labelers: Math-Shepherd, OmegaPRM), measured.
    paper_tokens: per method, the tokens the paper's complexity formula counts for the records of this call
        (MCNIG appendix A; see `prmkit.label.complexity`).
    seconds: wall seconds of the call (set by the labeling recipe around it).
    """

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
        """The settings that change `method`'s scores, as stored in each record's `params`; a re-run into a
        file whose records hold other params is refused, naming the difference."""
        ...

    def skip_reason(self, pool: Pool, method: str) -> str | None:
        """Why `method` cannot label `pool` (e.g. "no incorrect answer"), or None; cheap, runs no model."""
        ...

    def unreadable(self, pool: Pool, ids: Set[str]) -> dict[str, str]:
        """{trace id: why} for the traces of `pool` in `ids` that are too long for this labeler (a step or the
        whole input beyond the model's context); cheap, runs no model. The recipe stops on the first one, or
        skips and counts them (`--skip-too-long`)."""
        ...

    def label_stream(self, items: Iterable[tuple[Pool, Mapping[str, Set[str]]]]) -> Iterator[Labeled]:
        """For each (pool, todo) in order, label the traces of `pool` whose ids are in `todo[method]`, for each
        method in `todo` (none is skipped, none empty): one Labeled per item, exactly those records, in the pool's
        trace order. A labeler may batch the work of several pools; it yields each pool's result in turn."""
        ...

    def label(self, pool: Pool, todo: Mapping[str, Set[str]]) -> Labeled:
        """`label_stream` of one pool (`LabelerBase` gives it)."""
        ...


class LabelerBase:
    """What every labeler has from its `label_stream`: `label`, one pool alone."""

    def label_stream(self, items: Iterable[tuple[Pool, Mapping[str, Set[str]]]]) -> Iterator[Labeled]:
        raise NotImplementedError

    def label(self, pool: Pool, todo: Mapping[str, Set[str]]) -> Labeled:
        return next(iter(self.label_stream([(pool, todo)])))

