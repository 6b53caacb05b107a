"""TRL stepwise supervision format, both directions: `{prompt, completions: list[str], labels: list}`.

Float labels (MC values, soft MCNIG probabilities) stay floats; TRL itself casts them to int.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import Any

from prmkit.data.join import JoinReport, join_labels
from prmkit.data.jsonl import DataError, iter_json
from prmkit.data.records import Pool, Problem, StepLabels, Trace

__all__ = ["read_trl", "to_trl"]


def to_trl(pools: Iterable[Pool], labels: Iterable[StepLabels], soft: bool = False, report: JoinReport | None = None,
           require_all: bool = False) -> Iterator[dict[str, Any]]:
    """Join labels to their traces and yield TRL records; `soft=True` writes the raw scores instead of 0/1.
    Traces without labels or steps are skipped and counted in `report` (see `join_labels`)."""
    for pool, trace, lab in join_labels(pools, labels, report, require_all):
        if lab is None:
            continue
        values = lab.scores if soft else lab.labels
        if len(values) != len(trace.steps):
            raise ValueError(f"trace {trace.id}: {len(trace.steps)} steps but {len(values)} labels")
        yield {"prompt": pool.problem.question, "completions": list(trace.steps), "labels": list(values),
               "id": trace.id}


def read_trl(path: str | os.PathLike[str]) -> Iterator[tuple[Pool, StepLabels]]:
    """Each TRL line -> a one-trace Pool and its StepLabels (method 'trl'); bool labels become 0/1."""
    for lineno, obj in iter_json(path):
        prompt, completions, labels = obj.get("prompt"), obj.get("completions"), obj.get("labels")
        if not isinstance(prompt, str):
            raise DataError(f"{path}:{lineno}: field 'prompt' missing or not a string")
        if not isinstance(completions, list) or not all(isinstance(c, str) for c in completions):
            raise DataError(f"{path}:{lineno}: field 'completions' must be a list of strings")
        if not isinstance(labels, list) or not all(isinstance(v, (bool, int, float)) for v in labels):
            raise DataError(f"{path}:{lineno}: field 'labels' must be a list of numbers or booleans")
        if len(labels) != len(completions):
            raise DataError(f"{path}:{lineno}: {len(completions)} completions but {len(labels)} labels")
        tid = str(obj.get("id", f"trl-{lineno}"))
        values = [int(v) if isinstance(v, bool) else v for v in labels]
        hard = [1 if float(v) >= 0.5 else 0 for v in values]
        problem = Problem(tid, prompt, "", None, "math", {})
        trace = Trace(tid, tid, completions, None, bool(hard and all(hard)), "trl")
        labels_rec = StepLabels(tid, "trl", [float(v) for v in values], hard, None, {}, None, tid)
        yield Pool(problem, [trace], f"{path}:{lineno}"), labels_rec
