"""TRL stepwise supervision format in and out: `{prompt, completions, labels}`; float labels stay floats."""

import math
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from prmkit.data.join import JoinReport, join_labels
from prmkit.data.jsonl import DataError, iter_input
from prmkit.data.records import Pool, Problem, StepLabels, Trace

__all__ = ["labeled_pair", "read_trl", "read_trl_parquet", "to_trl", "trl_pair"]


def to_trl(pools: Iterable[Pool], labels: Iterable[StepLabels],
           values: Callable[[StepLabels], Sequence[float]] | None = None, keep_scores: bool = False,
           report: JoinReport | None = None, require_all: bool = False) -> Iterator[dict[str, Any]]:
    """TRL records of the labeled traces: `labels` = `values(step_labels)` (default the 0/1 labels); `keep_scores` adds
    `scores` and `threshold`. Unlabeled traces are skipped and counted in `report`."""
    for pool, trace, lab in join_labels(pools, labels, report, require_all):
        if lab is None:
            continue
        out = list(values(lab) if values else lab.labels)
        if len(out) != len(trace.steps):
            raise ValueError(f"trace {trace.id}: {len(trace.steps)} steps but {len(out)} labels")
        record = {"prompt": pool.problem.question, "completions": list(trace.steps), "labels": out, "id": trace.id}
        if keep_scores:
            record |= {"scores": [float(v) for v in lab.scores], "threshold": lab.threshold}
        yield record


def trl_pair(where: str, obj: dict[str, Any], default_id: str) -> tuple[Pool, StepLabels]:
    """One TRL record -> a one-trace Pool and its StepLabels (method 'trl'); bool labels become 0/1; `where`
    (`file:line`, `file:row N`) starts every error message."""
    prompt, completions, labels = obj.get("prompt"), obj.get("completions"), obj.get("labels")
    if not isinstance(prompt, str):
        raise DataError(f"{where}: field 'prompt' missing or not a string")
    if not isinstance(completions, list) or not all(isinstance(c, str) for c in completions):
        raise DataError(f"{where}: field 'completions' must be a list of strings")
    if not isinstance(labels, list) or not all(isinstance(v, (bool, int, float)) for v in labels):
        raise DataError(f"{where}: field 'labels' must be a list of numbers or booleans")
    if len(labels) != len(completions):
        raise DataError(f"{where}: {len(completions)} completions but {len(labels)} labels")
    if (bad := next((k for k, v in enumerate(labels) if not math.isfinite(v)), None)) is not None:
        raise DataError(f"{where}: label {bad + 1} (of {len(labels)}) is {labels[bad]}; every label is a finite "
                        "number (0/1, or a soft label in [0, 1])")
    tid = str(default_id if obj.get("id") is None else obj["id"])
    hard = [1 if float(v) >= 0.5 else 0 for v in labels]
    return labeled_pair("trl", where, tid, prompt, "", completions, [float(v) for v in labels], hard)


def labeled_pair(fmt: str, where: str, pid: str, question: str, answer: str, steps: list[str], scores: list[float],
                 labels: list[int], trace_answer: str | None = None, meta: dict[str, Any] | None = None
                 ) -> tuple[Pool, StepLabels]:
    """One trace of labeled step data as a one-trace Pool (origin `where`, ids `pid`; the trace is correct when
    every label is 1) and its StepLabels (method `fmt`, threshold null)."""
    problem = Problem(pid, question, answer, None, "math", dict(meta or {}))
    trace = Trace(pid, pid, steps, trace_answer, bool(labels and all(labels)), fmt)
    return Pool(problem, [trace], where), StepLabels(pid, fmt, scores, labels, None, {}, None, pid)


def read_trl(path: str | os.PathLike[str]) -> Iterator[tuple[Pool, StepLabels]]:
    """Each TRL JSONL line -> a one-trace Pool and its StepLabels (see `trl_pair`)."""
    for lineno, obj in iter_input(path):
        yield trl_pair(f"{path}:{lineno}", obj, f"trl-{lineno}")


def read_trl_parquet(path: str | os.PathLike[str]) -> Iterator[tuple[Pool, StepLabels]]:
    """Each row of a TRL stepwise parquet file (columns prompt, completions, labels, optional id) as `trl_pair`."""
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path)
    except Exception as e:  # pyarrow raises its own error types for a file that is not parquet
        raise DataError(f"{path}: not a readable parquet file ({e})") from None
    if missing := {"prompt", "completions", "labels"} - set(table.column_names):
        raise DataError(f"{path}: parquet columns {sorted(table.column_names)} lack {sorted(missing)}")
    for row, obj in enumerate(table.to_pylist(), start=1):
        yield trl_pair(f"{path}:row {row}", obj, f"trl-{row}")
