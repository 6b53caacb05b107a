"""Pools joined with their StepLabels on `trace_id`: the one join behind training examples and TRL export."""

import os
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass

from prmkit.data.jsonl import DataError, parsed_lines
from prmkit.data.records import Pool, StepLabels, Trace

__all__ = ["JoinReport", "join_labels", "read_labels"]


@dataclass
class JoinReport:
    """What a join kept and left out (`no_steps`: skipped; `orphan_labels`: label records that match no trace)."""

    traces: int = 0
    labeled: int = 0
    unlabeled: int = 0
    no_steps: int = 0
    orphan_labels: int = 0

    def line(self) -> str:
        return ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in asdict(self).items())


def read_labels(path: str | os.PathLike[str], allow_duplicates: bool = False) -> list[StepLabels]:
    """The StepLabels of `path`; a DataError for no label or a trace labeled twice (`allow_duplicates`: first kept)."""
    seen: dict[str, int] = {}
    out = []
    for lineno, rec in parsed_lines(path, StepLabels.from_dict):
        if rec.trace_id in seen:
            if allow_duplicates:
                continue
            raise DataError(f"{path}:{lineno}: trace id {rec.trace_id!r} is labeled again (first at "
                            f"{path}:{seen[rec.trace_id]}); remove the copy or pass --allow-duplicates")
        seen[rec.trace_id] = lineno
        out.append(rec)
    if not out:
        raise DataError(f"{path}: no label records (the file is empty)")
    return out


def join_labels(pools: Iterable[Pool], labels: Iterable[StepLabels] | None, report: JoinReport | None = None,
                require_all: bool = False) -> Iterator[tuple[Pool, Trace, StepLabels | None]]:
    """(pool, trace, its labels or None) for every trace with steps, in pool order; counts go to `report`;
    `require_all` makes an unlabeled trace or an orphan label an error when the join ends."""
    report = report if report is not None else JoinReport()
    by_id: dict[str, StepLabels] = {}
    for lab in labels or []:
        if lab.trace_id in by_id:
            raise ValueError(f"trace id {lab.trace_id!r} is labeled twice")
        by_id[lab.trace_id] = lab
    used: set[str] = set()
    for pool in pools:
        for trace in pool.traces:
            report.traces += 1
            used.add(trace.id)
            if not trace.steps:
                report.no_steps += 1
                continue
            lab = by_id.get(trace.id)
            report.labeled += lab is not None
            report.unlabeled += labels is not None and lab is None
            yield pool, trace, lab
    report.orphan_labels = len(by_id.keys() - used)
    if require_all and (report.unlabeled or report.orphan_labels):
        raise ValueError(f"--require-all-labels: {report.unlabeled} traces have no labels and "
                         f"{report.orphan_labels} label records match no trace")
