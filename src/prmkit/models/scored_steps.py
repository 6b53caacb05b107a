"""A step scorer's step scores as StepLabels records (method = the scorer's name, no labels, `params` {"scorer":
spec}), so the bench and ProcessBench judge any PRM as they judge a labeler."""

import os
from dataclasses import dataclass
from pathlib import Path

from prmkit.data.jsonl import AppendOnlyWriter, read_records
from prmkit.data.manifest import settings_beside
from prmkit.data.records import Pool, StepLabels
from prmkit.models.scorer import StepScorer, score_items

__all__ = ["ScoredTrace", "pool_traces", "scorer_labels", "scorer_labels_file"]


@dataclass(frozen=True)
class ScoredTrace:
    """What a scorer reads of a trace, and what its record carries."""

    trace_id: str
    problem_id: str
    question: str
    steps: list[str]
    correct: bool | None = None


def pool_traces(pools: list[Pool]) -> list[ScoredTrace]:
    """Every trace of `pools`, with its problem's question."""
    return [ScoredTrace(t.id, pool.problem.id, pool.problem.question, t.steps, t.correct) for pool in pools
            for t in pool.traces]


def scorer_labels(scorer: StepScorer, traces: list[ScoredTrace], method: str, spec: str = "") -> list[StepLabels]:
    """One StepLabels a trace, in input order, from one `score_items` pass over all of them."""
    scores = dict(score_items(scorer, [(t.question, t.steps) for t in traces]))
    return [StepLabels(t.trace_id, method, [float(s) for s in scores[i]], [], None, {"scorer": spec}, t.correct,
                       t.problem_id) for i, t in enumerate(traces)]


def scorer_labels_file(spec: str, traces: list[ScoredTrace], path: str | os.PathLike[str], method: str,
                       score: bool = True) -> dict[str, StepLabels]:
    """{trace id: StepLabels} of `traces` scored by the scorer of `spec`, kept in `path` (append-only: a re-run
    scores only the missing traces; `score=False` scores none); a file of another scorer is refused."""
    from prmkit.models.scorer_spec import keep_scorer_file, load_scorer_spec, scorer_identity

    file = Path(path)
    held = {r.trace_id: r for r in read_records(file, StepLabels.from_dict)} if file.is_file() else {}
    todo = [t for t in traces if t.trace_id not in held]
    if held or (todo and score):
        old = next(iter(held.values())).params.get("scorer") if held else None
        if old and not settings_beside(file).is_file() and scorer_identity(old) != scorer_identity(spec):
            raise ValueError(f"{file} holds the scores of the scorer '{old}', not '{spec}': give this scorer "
                             "another name, or remove the file")  # written before its settings were kept beside it
        keep_scorer_file(file, spec, None, {}, hint="give this scorer another name, or remove the file")
    if todo and score:
        scorer = load_scorer_spec(spec)  # before the file is opened: a scorer that fails to load leaves none
        with AppendOnlyWriter(file, key=lambda d: str(d["trace_id"])) as writer:
            for record in scorer_labels(scorer, todo, method, spec):
                writer.write(record)
                held[record.trace_id] = record
    wanted = {t.trace_id for t in traces}
    return {k: v for k, v in held.items() if k in wanted}
