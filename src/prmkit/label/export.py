"""Step labels -> TRL stepwise supervision (`{prompt, completions, labels}`) as JSONL, parquet or a
`datasets.Dataset`: `prmkit export` (formats: docs/formats.md)."""

import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from prmkit.data.formats import read_pools
from prmkit.data.join import JoinReport, read_labels
from prmkit.data.jsonl import write_records
from prmkit.data.outputs import atomic_path, claim_outputs, claims
from prmkit.data.records import Pool, StepLabels
from prmkit.data.trl import to_trl
from prmkit.label.threshold import soft_labels

__all__ = ["EXPORT_FORMATS", "ExportConfig", "export_labels", "hard_values", "soft_values", "to_dataset",
           "trl_records"]


def hard_values(lab: StepLabels) -> list[int]:
    """The 0/1 labels; an error when the file has not been thresholded yet."""
    if len(lab.labels) != len(lab.scores):
        raise ValueError(f"trace {lab.trace_id} has no binary labels yet: run `prmkit threshold` or export "
                         f"soft labels (trl-soft)")
    return list(lab.labels)


def soft_values(lab: StepLabels) -> list[float]:
    """sigmoid(score - tau) with the record's threshold; scores in [0, 1] as they are; raw nats without tau raise."""
    if lab.threshold is not None:
        return soft_labels(lab.scores, lab.threshold)
    if all(0.0 <= s <= 1.0 for s in lab.scores):
        return [float(s) for s in lab.scores]
    raise ValueError(f"trace {lab.trace_id}: {lab.method} scores outside [0, 1] and no threshold to centre them "
                     f"on: run `prmkit threshold` first")


# name -> (values written as `labels`, keep raw scores, file kind)
EXPORT_FORMATS: dict[str, tuple[Callable[[StepLabels], list], bool, str]] = {
    "trl": (hard_values, False, "jsonl"),
    "trl-soft": (soft_values, True, "jsonl"),
    "parquet": (hard_values, False, "parquet"),
    "parquet-soft": (soft_values, True, "parquet"),
}


@dataclass
class ExportConfig:
    """`prmkit export`: pools + step labels -> TRL stepwise supervision."""

    pools: str = field(default="", metadata={"help": "the pool file the labels were made from (or `demo`)",
                                             "role": "input"})
    labels: str = field(default="", metadata={"help": "StepLabels JSONL from `prmkit label`", "role": "input"})
    output: str = field(default="", metadata={"help": "file to write (TRL stepwise JSONL, or parquet)",
                                              "role": "output"})
    format: str = field(default="trl", metadata={"help": "trl: 0/1 labels; trl-soft: sigmoid(score - tau) in "
                                                         "[0, 1] plus the raw scores; parquet, parquet-soft: the "
                                                         "same as a parquet file"})
    allow_duplicates: bool = field(default=False, metadata={"help": "keep the first of repeated problem ids / "
                                                                    "labeled trace ids instead of refusing"})
    require_all_labels: bool = field(default=False, metadata={"help": "a trace without labels or a label "
                                                                      "without a trace is an error"})


def trl_records(pools: str | os.PathLike[str] | Iterable[Pool], labels: str | os.PathLike[str] | Iterable[StepLabels],
                format: str = "trl", report: JoinReport | None = None, require_all: bool = False,
                allow_duplicates: bool = False) -> Iterator[dict[str, Any]]:
    """TRL records of `labels` joined to `pools` (paths or records) in the values of `EXPORT_FORMATS[format]`."""
    if format not in EXPORT_FORMATS:
        raise ValueError(f"unknown export format '{format}'; choose from {', '.join(EXPORT_FORMATS)}")
    values, keep_scores, _ = EXPORT_FORMATS[format]
    pools = read_pools(pools, allow_duplicates=allow_duplicates) if isinstance(pools, str | os.PathLike) else pools
    labels = read_labels(labels, allow_duplicates) if isinstance(labels, str | os.PathLike) else labels
    return to_trl(pools, labels, values, keep_scores, report, require_all)


def to_dataset(pools: str | os.PathLike[str] | Iterable[Pool], labels: str | os.PathLike[str] | Iterable[StepLabels],
               soft: bool = False):
    """A `datasets.Dataset` with TRL's stepwise columns (`prompt, completions, labels, id`; with `soft`, soft labels
    plus `scores` and `threshold`)."""
    from datasets import Dataset

    records = list(trl_records(pools, labels, "trl-soft" if soft else "trl"))
    if not records:
        raise ValueError("no labeled trace matches a pool trace: nothing to export")
    return Dataset.from_list(records)


def export_labels(cfg: ExportConfig) -> dict[str, Any]:
    """Write `cfg.labels` joined to `cfg.pools` to `cfg.output` in `cfg.format` (whole or not at all): {"written":
    records, "joined": what the join left out}."""
    if not (cfg.pools and cfg.labels and cfg.output):
        raise ValueError("export needs pools, labels and output")
    report = JoinReport()
    with claim_outputs(**claims(cfg)):
        rows = list(trl_records(cfg.pools, cfg.labels, cfg.format, report, cfg.require_all_labels,
                                cfg.allow_duplicates))
        if not rows:
            raise ValueError(f"no labeled trace matches a pool trace ({report.line()}): nothing written to "
                             f"{cfg.output}; are {cfg.labels} the labels of {cfg.pools}?")
        if EXPORT_FORMATS[cfg.format][2] == "jsonl":
            written = write_records(cfg.output, rows)
        else:
            from datasets import Dataset

            with atomic_path(cfg.output) as tmp:
                Dataset.from_list(rows).to_parquet(str(tmp))
            written = len(rows)
    return {"written": written, "joined": report.line()}
