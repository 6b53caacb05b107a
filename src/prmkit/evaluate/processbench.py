"""`prmkit evaluate processbench`: first-error identification of several step scorers on a step-level benchmark, tau
chosen on one range of problems and reported on another (docs/first_error.md)."""

import os
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from prmkit.data.records import RecordError, StepLabels, check_score_record
from prmkit.data.steplevel import StepRecord
from prmkit.evaluate.first_error import choose_tau, error_correct_f1, first_error_result, first_labeled_wrong
from prmkit.evaluate.report import read_score_lines
from prmkit.evaluate.stats import pct

__all__ = ["SCORE_FORMATS", "format_processbench", "processbench_report", "read_step_scores", "scorer_step_scores"]

# name -> (keys that identify it, line -> (id, step scores, step labels or None))
SCORE_FORMATS: dict[str, tuple[set[str], Callable[[dict], tuple[str, list[float], list[int] | None]]]] = {
    "step_labels": ({"trace_id", "scores"}, lambda d: (d["trace_id"], d["scores"], d.get("labels") or None)),
    "score": ({"id", "step_scores"}, lambda d: (d["id"], d["step_scores"], None)),
}


def read_step_scores(path: str | os.PathLike[str]) -> dict[str, tuple[list[float], list[int] | None]]:
    """{record id: (step scores, step labels or None)} from a StepLabels or `prmkit score` file."""
    if not os.path.isfile(path):
        raise FileNotFoundError(f"scores file not found: {path}")
    return read_score_lines(path, _step_scores)


def _step_scores(obj: dict) -> tuple[str, tuple[list[float], list[int] | None]]:
    """A StepLabels or score line -> (its id, (step scores, step labels or None)), checked like every reader does."""
    fmt = next((f for keys, f in SCORE_FORMATS.values() if keys <= obj.keys()), None)
    if fmt is None:
        raise RecordError(f"neither StepLabels (trace_id, scores) nor a score record (id, step_scores); keys "
                          f"{sorted(obj)}")
    if fmt is SCORE_FORMATS["score"][1]:
        check_score_record({"problem_id": "", "index": 0, "answer": None, "correct": None, "score": 0.0} | obj)
    else:
        StepLabels.from_dict({k: v for k, v in obj.items() if k in StepLabels.__dataclass_fields__})
    rid, scores, labels = fmt(obj)
    return rid, (scores, labels)


def scorer_step_scores(records: list[StepRecord], spec: str, name: str = "") -> dict[str, tuple[list[float], None]]:
    """{record id: (step scores, None)} of every record's steps under the scorer of `spec`."""
    from prmkit.models.scored_steps import ScoredTrace, scorer_labels
    from prmkit.models.scorer_spec import load_scorer_spec

    traces = [ScoredTrace(r.id, r.problem_id, r.problem, r.steps) for r in records]
    return {lab.trace_id: (lab.scores, None) for lab in scorer_labels(load_scorer_spec(spec), traces, name, spec)}


def _split(records: list[StepRecord], rng: slice) -> list[StepRecord]:
    """The records of the problems in `rng`, problems numbered by first appearance in the benchmark."""
    chosen = set(list(dict.fromkeys(r.problem_id or r.id for r in records))[rng])
    return [r for r in records if (r.problem_id or r.id) in chosen]


def _joined(records: list[StepRecord], scores: dict, name: str) -> list:
    for r in records:
        if len(scores[r.id][0]) != len(r.steps):
            raise ValueError(f"{name}: {r.id} has {len(scores[r.id][0])} step scores for {len(r.steps)} steps")
    return [scores[r.id] for r in records]


def _row(scorer: str, tau: float | None, result: Any, choose_f1: float | None, missing: int) -> dict[str, Any]:
    return {"scorer": scorer, "tau": tau, **asdict(result), "choose_f1": choose_f1, "missing": missing}


def processbench_report(records: list[StepRecord], score_files: dict[str, str], choose_on: slice,
                        report_on: slice, scored: dict[str, dict] | None = None) -> dict[str, Any]:
    """A row per scorer (and per labels file's own labels): tau from `choose_on`, figures on `report_on`, on the records
    every file scores (`dropped` counts the rest per file). `scored`: step scores already computed, by name."""
    choose, report = _split(records, choose_on), _split(records, report_on)
    if {r.id for r in choose} & {r.id for r in report}:
        raise ValueError("the choose and report ranges overlap: tau would not be held out")
    every = {name: read_step_scores(path) for name, path in score_files.items()}
    if twice := set(every) & set(scored or {}):
        raise ValueError(f"the name(s) {sorted(twice)} are given to a score file and to a scorer")
    every |= scored or {}
    dropped = {name: sum(r.id not in scores for r in choose + report) for name, scores in every.items()}
    choose = [r for r in choose if all(r.id in s for s in every.values())]
    report = [r for r in report if all(r.id in s for s in every.values())]
    if not choose or not report:
        raise ValueError(f"no record scored by every scorer in the choose ({len(choose)}) or report "
                         f"({len(report)}) range; records each file lacks: {dropped}")
    rows = []
    for name, scores in every.items():
        ch_scores, rp_scores = _joined(choose, scores, name), _joined(report, scores, name)
        tau, fit = choose_tau([s for s, _ in ch_scores], [r.first_error for r in choose])
        result = first_error_result([s for s, _ in rp_scores], [r.first_error for r in report], tau)
        rows.append(_row(name, tau, result, fit.f1, dropped[name]))
        if all(labels is not None for _, labels in rp_scores):
            preds = [first_labeled_wrong(labels) for _, labels in rp_scores]
            rows.append(_row(f"{name} (labels)", None, error_correct_f1(preds, [r.first_error for r in report]),
                             None, dropped[name]))
    return {"choose_records": len(choose), "report_records": len(report), "dropped": dropped,
            "compared_records": len(choose) + len(report), "rows": rows}


def format_processbench(report: dict[str, Any]) -> str:
    """A text table: scorer, tau, error acc, correct acc, F1 (%), and the sample counts."""
    head = f"{'scorer':<24} {'tau':>10} {'error acc':>9} {'correct acc':>11} {'F1':>6} {'n err/ok':>9} {'fit F1':>6}"
    lines = [head, "-" * len(head)]
    if any(report.get("dropped", {}).values()):
        lacks = ", ".join(f"{name} lacks {n}" for name, n in report["dropped"].items() if n)
        lines.insert(0, f"compared on the {report['compared_records']} records every scorer scored ({lacks}; "
                        "those are dropped from every row)")
    for r in report["rows"]:
        tau = "labels" if r["tau"] is None else f"{r['tau']:.4g}"
        lines.append(f"{r['scorer']:<24} {tau:>10} {pct(r['error_accuracy']):>9} {pct(r['correct_accuracy']):>11} "
                     f"{pct(r['f1']):>6} {r['n_error']:>4}/{r['n_correct']:<4} {pct(r['choose_f1']):>6}")
    return "\n".join(lines)


def format_processbench_run(report: dict[str, Any], cfg: Any) -> str:
    return (f"first-error identification (ProcessBench protocol): tau chosen on problems {cfg.choose_on} "
            f"({report['choose_records']} records), reported on {cfg.report_on} ({report['report_records']} "
            f"records), %\n" + format_processbench(report))
