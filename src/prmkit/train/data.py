"""Training examples: pools joined with step labels on `trace_id` (or a TRL stepwise file).

Reads a Pool JSONL, or the raw GSM8K `candidates_dev.jsonl` (detected by its `ground_truth` key), plus a
StepLabels JSONL such as

    {"trace_id": "gsm8k-dev-0/6b_finetuning", "method": "mcnig", "scores": [0.8, 0.1], "labels": [1, 0],
     "threshold": 0.5, "params": {}, "correct": false, "problem_id": "gsm8k-dev-0"}

Targets: `labels` (0/1) by default. `soft=True` trains on soft labels: sigmoid(score - threshold) for scores
thresholded in nats (IG, MCNIG: records with a `threshold`), the scores themselves otherwise (MC values in [0, 1]
from a TRL file). A 3-class PRM (`prm3`) takes -1/0/+1: from the scores of a TRL file as they are, or from
thresholded scores with a neutral band (`neutral_band`, see `three_class_labels`). An ORM needs only pools: its
one label is the validator's `trace.correct`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from prmkit.data.formats import read_pools as read_any_pools
from prmkit.data.jsonl import read_records
from prmkit.data.records import Pool, StepLabels
from prmkit.data.trl import read_trl
from prmkit.label.threshold import soft_labels, three_class_labels

__all__ = ["Example", "build_examples", "parse_range", "read_pools", "read_training_set", "select_range",
           "step_targets"]


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


def step_targets(lab: StepLabels, kind: str, soft: bool = False, neutral_band: float | None = None) -> list[float]:
    """The training targets of one labeled trace (see the module docstring)."""
    if kind == "prm3":
        if lab.threshold is None:
            return [float(v) for v in lab.scores]
        if neutral_band is None:
            raise ValueError(f"prm3 needs labels -1/0/+1; {lab.method} labels are thresholded scores: give "
                             "--neutral-band B (steps within tau +- B become neutral)")
        return [float(v) for v in three_class_labels(lab.scores, lab.threshold, neutral_band)]
    if soft:
        return soft_labels(lab.scores, lab.threshold) if lab.threshold is not None else list(map(float, lab.scores))
    return [float(v) for v in lab.labels]


def build_examples(pools: list[Pool], labels: list[StepLabels] | None, kind: str,
                   soft: bool = False, neutral_band: float | None = None) -> list[Example]:
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
                values = step_targets(lab, kind, soft, neutral_band)
                if len(values) != len(trace.steps):
                    raise ValueError(f"trace {trace.id}: {len(trace.steps)} steps but {len(values)} labels")
            out.append(Example(trace.id, pool.problem.id, pool.problem.question, list(trace.steps), values))
    if kind == "prm3" and out and not any(v == -1 for ex in out for v in ex.labels):
        raise ValueError("prm3: no step is labeled -1, so the negative class would never be trained (0/1 labels "
                         "would read as neutral/positive); give -1/0/+1 labels or --neutral-band")
    return out


def read_training_set(kind: str, pools_path: str | None, labels_path: str | None, problems: str | None,
                      soft: bool = False, neutral_band: float | None = None) -> list[Example]:
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
    return build_examples(select_range(pools, problems), labels, kind, soft, neutral_band)
