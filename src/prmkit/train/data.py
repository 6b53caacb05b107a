"""Training examples: pools joined with step labels on `trace_id` (or a TRL stepwise file).

Reads a Pool JSONL, or the raw GSM8K `candidates_dev.jsonl` (detected by its `ground_truth` key), plus a
StepLabels JSONL such as

    {"trace_id": "gsm8k-dev-0/6b_finetuning", "method": "mcnig", "scores": [0.8, 0.1], "labels": [1, 0],
     "threshold": 0.5, "params": {}, "correct": false, "problem_id": "gsm8k-dev-0"}

`soft=True` trains on `scores` (MCNIG probabilities) instead of the 0/1 `labels`. An ORM needs only pools:
its one label is the validator's `trace.correct`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from prmkit.data.formats import read_pools as read_any_pools
from prmkit.data.jsonl import read_records
from prmkit.data.records import Pool, StepLabels
from prmkit.data.trl import read_trl

__all__ = ["Example", "build_examples", "parse_range", "read_pools", "read_training_set", "select_range"]


@dataclass
class Example:
    """One trace with its targets: one per step (prm, prm3) or one in all (orm)."""

    trace_id: str
    problem_id: str
    question: str
    steps: list[str]
    labels: list[float]


def read_pools(path: str | os.PathLike[str]) -> list[Pool]:
    """Any pool format `prmkit.data.formats` detects (Pool JSONL, GSM8K candidates_dev.jsonl, ...)."""
    return list(read_any_pools(path))


def parse_range(text: str | None) -> slice:
    """'0:500' -> slice(0, 500); '500:' -> slice(500, None); None -> everything."""
    if not text:
        return slice(None)
    start, _, stop = text.partition(":")
    return slice(int(start) if start else None, int(stop) if stop else None)


def select_range(pools: list[Pool], text: str | None) -> list[Pool]:
    """Problems by index in file order (e.g. '0:500' = the first 500 problems)."""
    return pools[parse_range(text)]


def build_examples(pools: list[Pool], labels: list[StepLabels] | None, kind: str,
                   soft: bool = False) -> list[Example]:
    """Join on trace_id; traces without labels are skipped (prm/prm3), traces without `correct` too (orm)."""
    by_id = {lab.trace_id: lab for lab in labels or []}
    out = []
    for pool in pools:
        for trace in pool.traces:
            if kind == "orm":
                if trace.correct is None or not trace.steps:
                    continue
                values = [1.0 if trace.correct else 0.0]
            else:
                lab = by_id.get(trace.id)
                if lab is None:
                    continue
                values = [float(v) for v in (lab.scores if soft else lab.labels)]
                if len(values) != len(trace.steps):
                    raise ValueError(f"trace {trace.id}: {len(trace.steps)} steps but {len(values)} labels")
            out.append(Example(trace.id, pool.problem.id, pool.problem.question, list(trace.steps), values))
    return out


def read_training_set(kind: str, pools_path: str | None, labels_path: str | None, problems: str | None,
                      soft: bool = False) -> list[Example]:
    """The CLI's inputs -> examples: a TRL file as --labels needs no --pools."""
    if labels_path and pools_path is None:
        pairs = list(read_trl(labels_path))
        pools, labels = [p for p, _ in pairs], [lab for _, lab in pairs]
    else:
        if pools_path is None:
            raise ValueError("--pools is required (and --labels for prm/prm3)")
        pools = read_pools(pools_path)
        labels = list(read_records(labels_path, StepLabels.from_dict)) if labels_path else None
        if kind != "orm" and labels is None:
            raise ValueError(f"train {kind} needs --labels")
    return build_examples(select_range(pools, problems), labels, kind, soft)
