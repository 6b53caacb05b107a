"""Training examples: pools joined with step labels on `trace_id` (or a labeled-data file), each head's targets
read by its `label_source` (docs/reward_models.md)."""

from collections.abc import Callable
from dataclasses import dataclass

from prmkit.data.formats import read_pools, select_range
from prmkit.data.join import JoinReport, join_labels, read_labels
from prmkit.data.jsonl import DataError
from prmkit.data.labeled import read_labeled
from prmkit.data.records import Pool, StepLabels, Trace
from prmkit.label.threshold import soft_labels, three_class_labels
from prmkit.models.heads import head_class

__all__ = ["LABEL_SOURCES", "Example", "LabelSource", "build_examples", "read_training_set"]


@dataclass
class Example:
    """One trace with its targets: one per step (prm, prm3) or one in all (orm)."""

    trace_id: str
    problem_id: str
    question: str
    steps: list[str]
    labels: list[float]


def _step_values(trace: Trace, lab: StepLabels | None, soft: bool, neutral_band: float | None) -> list[float] | None:
    """Binary step targets: 0/1 labels, or soft ones (sigmoid(score - tau), raw scores without a threshold)."""
    if lab is None:
        return None
    if soft:
        return soft_labels(lab.scores, lab.threshold) if lab.threshold is not None else list(map(float, lab.scores))
    return [float(v) for v in lab.labels]


def _three_class_values(trace: Trace, lab: StepLabels | None, soft: bool,
                        neutral_band: float | None) -> list[float] | None:
    """-1/0/+1 step targets: the scores of a TRL file as they are, or thresholded scores with a neutral band."""
    if lab is None:
        return None
    if lab.threshold is None:
        if neutral_band is not None:
            raise ValueError(f"--neutral-band splits thresholded IG/MCNIG scores around tau; the {lab.method} labels "
                             f"of trace {trace.id} have no threshold: their scores are the 3-class labels as they are")
        return [float(v) for v in lab.scores]
    if neutral_band is None:
        raise ValueError(f"prm3 needs labels -1/0/+1; {lab.method} labels are thresholded scores: give "
                         "--neutral-band B (steps within tau +- B become neutral)")
    return [float(v) for v in three_class_labels(lab.scores, lab.threshold, neutral_band)]


def _outcome_values(trace: Trace, lab: StepLabels | None, soft: bool, neutral_band: float | None) -> list[float] | None:
    """One target, the validator's verdict `trace.correct`; traces without one (or without steps) are skipped."""
    return None if trace.correct is None or not trace.steps else [1.0 if trace.correct else 0.0]


@dataclass(frozen=True)
class LabelSource:
    """Where a head's targets come from: `values(trace, labels or None, soft, neutral_band)` -> targets, None = skip."""

    values: Callable[[Trace, StepLabels | None, bool, float | None], list[float] | None]
    needs_labels: bool
    per_step: bool  # one target per step (checked against the step count)


# Head.label_source -> how its targets are read
LABEL_SOURCES: dict[str, LabelSource] = {
    "steps": LabelSource(_step_values, needs_labels=True, per_step=True),
    "three_class": LabelSource(_three_class_values, needs_labels=True, per_step=True),
    "outcome": LabelSource(_outcome_values, needs_labels=False, per_step=False),
}


def build_examples(pools: list[Pool], labels: list[StepLabels] | None, kind: str,
                   soft: bool = False, neutral_band: float | None = None, report: JoinReport | None = None,
                   require_all: bool = False) -> list[Example]:
    """Join on trace_id; traces without labels are skipped (prm/prm3), traces without `correct` too (orm);
    `report` counts what the join left out (`prmkit.data.join`), `require_all` makes that an error."""
    head, out = head_class(kind), []
    source = LABEL_SOURCES[head.label_source]
    for pool, trace, lab in join_labels(pools, labels, report, require_all):
        values = source.values(trace, lab, soft, neutral_band)
        if values is None:
            continue
        if source.per_step and len(values) != len(trace.steps):
            raise ValueError(f"trace {trace.id}: {len(trace.steps)} steps but {len(values)} labels")
        try:
            head.targets(values)  # the head's rule on its targets, here: before any model loads, with the place
        except ValueError as e:
            how = " (--soft: the scores, or sigmoid(score - threshold), are the targets)" if soft else ""
            where = f"{pool.origin}: trace {trace.id}" if pool.origin else f"trace {trace.id}"
            raise DataError(f"{where}: {e}{how}") from None
        out.append(Example(trace.id, pool.problem.id, pool.problem.question, list(trace.steps), values))
    head.check_labels([ex.labels for ex in out])
    return out


def read_training_set(kind: str, pools_path: str | None, labels_path: str | None, problems: str | None,
                      soft: bool = False, neutral_band: float | None = None, report: JoinReport | None = None,
                      allow_duplicates: bool = False, require_all: bool = False) -> list[Example]:
    """The CLI's inputs -> examples; a labeled-data file as --labels needs no --pools. Repeated ids are errors
    unless `allow_duplicates`."""
    if labels_path and pools_path is None:
        pairs = list(read_labeled(labels_path))
        pools, labels = [p for p, _ in pairs], [lab for _, lab in pairs]
    else:
        if pools_path is None:
            raise ValueError("--pools is required (and --labels for prm/prm3)")
        pools = list(read_pools(pools_path, allow_duplicates=allow_duplicates))
        labels = read_labels(labels_path, allow_duplicates) if labels_path else None
        if LABEL_SOURCES[head_class(kind).label_source].needs_labels and labels is None:
            raise ValueError(f"train {kind} needs --labels")
    return build_examples(select_range(pools, problems), labels, kind, soft, neutral_band, report, require_all)
