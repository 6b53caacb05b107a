"""What `prmkit view` shows, before any HTML: pools joined with each labels or scores file's step marks, and the true
first errors that records state (docs/view.md)."""

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import accumulate, islice
from typing import Any

from prmkit.data.formats import read_pools
from prmkit.data.jsonl import parsed_lines
from prmkit.data.records import Pool, StepLabels
from prmkit.data.settings import LIMIT, check_limits
from prmkit.data.warn import warn
from prmkit.evaluate.first_error import first_labeled_wrong
from prmkit.evaluate.run import named_file

__all__ = ["SOURCE_READERS", "TRAJECTORIES", "Mark", "Source", "ViewConfig", "load_view", "predicted_first_error",
           "read_source", "trajectory"]


@dataclass
class ViewConfig:
    """Settings of `prmkit view` (one self-contained HTML page; nothing is fetched when it is opened)."""

    pools: str = field(default="demo", metadata={"help": "pool file in any format `prmkit label` reads, or demo",
                                                 "role": "input"})
    labels: list[str] = field(default_factory=list, metadata={
        "help": "StepLabels JSONL from `prmkit label`, as PATH or NAME=PATH (name: the file stem)", "role": "input"})
    scores: list[str] = field(default_factory=list, metadata={
        "help": "`prmkit score` output, as PATH or NAME=PATH (name: the file stem)", "role": "input"})
    output: str = field(default="view.html", metadata={"help": "HTML file to write", "role": "output"})
    limit: int | None = field(default=None, metadata={"help": "show only the first N problems of --pools",
                                                      "range": LIMIT})
    title: str = field(default="prmkit view", metadata={"help": "page title"})

    def __post_init__(self) -> None:
        check_limits(self)


@dataclass
class Mark:
    """One source's verdict on one trace: step scores, predicted labels, and the threshold they were cut at."""

    scores: list[float]
    labels: list[int]
    threshold: float


@dataclass
class Source:
    """One labels or scores file: `unit` is "nats" or "probability"; `reading` keys TRAJECTORIES."""

    name: str
    unit: str
    reading: str
    center: float
    marks: dict[str, Mark] = field(default_factory=dict)
    first_errors: dict[str, int] = field(default_factory=dict)


def trajectory(scores: list[float], reading: str) -> list[tuple[int, float]]:
    """(step position, value) points of a trace's score trajectory; see TRAJECTORIES."""
    return TRAJECTORIES[reading](scores)


# MCNIG figs 6/7 (appendix D): "step0" scores are NetInfo_i - NetInfo_0, "previous" ones sum to it.
# Example: step0 [2.0, -1.5] -> [(0, 0), (1, 2.0), (2, -1.5)]; previous [2.0, -1.5] -> [(0, 0), (1, 2.0), (2, 0.5)].
TRAJECTORIES: dict[str, Callable[[list[float]], list[tuple[int, float]]]] = {
    "step0": lambda s: [(0, 0.0)] + [(i + 1, float(v)) for i, v in enumerate(s)],
    "previous": lambda s: [(0, 0.0)] + [(i + 1, float(v)) for i, v in enumerate(accumulate(s))],
    "probability": lambda s: [(i + 1, float(v)) for i, v in enumerate(s)],
}


predicted_first_error = first_labeled_wrong  # the first step labeled 0, -1 when none is (ProcessBench's convention)


def _first_error(obj: dict[str, Any]) -> int | None:
    value = obj.pop("first_error", None)
    if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < -1):
        raise ValueError(f"first_error must be a step index >= -1, got {value!r}")
    return value


def _label_mark(source: Source, obj: dict[str, Any]) -> tuple[str, Mark]:
    """A StepLabels line; the first threshold seen centres the colour scale, `params.reference` picks the reading."""
    if "step_scores" in obj and "trace_id" not in obj:
        raise ValueError("a `prmkit score` record (id, step_scores), not step labels: give this file as --scores; "
                         "--labels takes the StepLabels of `prmkit label` (trace_id, scores, labels)")
    rec = StepLabels.from_dict(obj)
    if rec.threshold is not None and not source.marks:
        source.center = float(rec.threshold)
    # IG is I_i - I_0 whatever `reference` says (its records carry the run's MCNIG settings, which it ignores)
    source.reading = "step0" if rec.method == "ig" else str(rec.params.get("reference", "step0"))
    if source.reading not in TRAJECTORIES:
        raise ValueError(f"params.reference {source.reading!r} is not one of {sorted(TRAJECTORIES)}")
    tau = source.center if rec.threshold is None else float(rec.threshold)
    labels = rec.labels or ([int(s > tau) for s in rec.scores] if rec.threshold is not None else [])
    return rec.trace_id, Mark([float(s) for s in rec.scores], labels, tau)


def _score_mark(source: Source, obj: dict[str, Any]) -> tuple[str, Mark]:
    """A `prmkit score` line: step probabilities, labeled 1 above 0.5."""
    steps = obj.get("step_scores")
    if "trace_id" in obj and steps is None:
        raise ValueError("a `prmkit label` record (trace_id, scores, labels), not step scores: give this file as "
                         "--labels; --scores takes the output of `prmkit score` (id, step_scores)")
    if not isinstance(obj.get("id"), str) or not isinstance(steps, list) or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in steps):
        raise ValueError("a score record needs 'id' (str) and 'step_scores' (list of numbers)")
    return obj["id"], Mark([float(v) for v in steps], [int(v > 0.5) for v in steps], 0.5)


# kind -> the (unit, reading, center) of its Source, and its reader of one record: (trace id, Mark)
SOURCE_READERS: dict[str, tuple[tuple[str, str, float], Callable[[Source, dict[str, Any]], tuple[str, Mark]]]] = {
    "labels": (("nats", "step0", 0.0), _label_mark),
    "scores": (("probability", "probability", 0.5), _score_mark),
}


def read_source(kind: str, item: str) -> Source:
    """A labels or scores file (`kind`), given as PATH or NAME=PATH."""
    name, path = named_file(item)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"--{kind} file not found: {path}")
    (unit, reading, center), mark = SOURCE_READERS[kind]
    source = Source(name, unit, reading, center)
    # first_error is popped before the record is read (a StepLabels has no such field)
    for _, (first, (trace_id, value)) in parsed_lines(path, lambda obj: (_first_error(obj), mark(source, obj))):
        source.marks[trace_id] = value
        if first is not None:
            source.first_errors[trace_id] = first
    return source


def load_view(cfg: ViewConfig) -> tuple[list[Pool], list[Source], dict[str, int]]:
    """The pools to show (first `cfg.limit`), the sources in the order given, and the known true first errors."""
    pools = list(islice(read_pools(cfg.pools), cfg.limit))
    sources = [read_source("labels", p) for p in cfg.labels] + [read_source("scores", p) for p in cfg.scores]
    names = [s.name for s in sources]
    if len(set(names)) != len(names):
        raise ValueError(f"two sources share a name in {names}; name them with NAME=PATH")
    first_errors = {k: v for s in reversed(sources) for k, v in s.first_errors.items()}  # the first source's wins
    for pool in pools:  # over which a problem's own wins
        if isinstance(meta := pool.problem.meta.get("first_error"), dict):
            first_errors |= {str(k): int(v) for k, v in meta.items() if isinstance(v, int)}
    shown = {t.id for p in pools for t in p.traces}
    for item, source in zip([*cfg.labels, *cfg.scores], sources, strict=True):
        path = named_file(item)[1]
        if not source.marks:
            warn(f"{path}: no records (the file is empty): the page shows no {source.name} marks")
        elif not shown & source.marks.keys():
            warn(f"{path}: none of its {len(source.marks)} records is a trace of the {len(shown)} on the page "
                 f"(e.g. {next(iter(source.marks))!r}; --pools {cfg.pools}): the page shows no {source.name} marks")
    return pools, sources, first_errors
