"""The step-label bench's figures: every labeler's step scores against the exact truth, tau chosen on the choose half
of the problems (ProcessBench's rule) and applied to the report half (docs/bench.md, "Figures")."""

import math
from collections.abc import Mapping, Sequence
from functools import partial
from itertools import accumulate
from typing import Any

import numpy as np

from prmkit.data.records import StepLabels
from prmkit.evaluate.first_error import choose_tau, error_correct_f1, first_labeled_wrong, first_step_below
from prmkit.evaluate.stats import percentile_interval, problem_draws
from prmkit.label.registry import claim_pairs
from prmkit.label.threshold import balanced_accuracy

__all__ = ["bench_rows", "common_traces", "cost_scaling", "f1_per_ktokens", "paired_differences", "split_problems"]

# balanced accuracy, undefined (NaN) when a class is absent: the bench compares labelers on it
_balanced = partial(balanced_accuracy, absent=float("nan"))


def split_problems(truth: Sequence[StepLabels]) -> tuple[set[str], set[str]]:
    """(choose, report) problem ids: within each level, problems alternate in order of first appearance."""
    by_level: dict[int, dict[str, None]] = {}  # each level's problems, in order
    for r in truth:
        by_level.setdefault(r.params["level"], {})[r.problem_id] = None
    levels = [list(ids) for ids in by_level.values()]
    return {p for ids in levels for p in ids[0::2]}, {p for ids in levels for p in ids[1::2]}


def common_traces(truth: Mapping[str, StepLabels], labels: Mapping[str, Mapping[str, StepLabels]]
                  ) -> tuple[list[str], dict[str, int]]:
    """The trace ids every labeler scored (in truth order) and, per labeler, how many truth traces it lacks."""
    return ([t for t in truth if all(t in got for got in labels.values())],
            {name: sum(t not in got for t in truth) for name, got in labels.items()})


def _level_row(name: str, level: str, recs: list[tuple[StepLabels, StepLabels]], tau: float, n_boot: int,
               seed: int) -> dict[str, Any]:
    firsts = [first_labeled_wrong(tr.labels) for _, tr in recs]
    preds = [first_step_below(lab.scores, tau) for lab, _ in recs]
    result = error_correct_f1(preds, firsts)
    # the 95% interval of F1 when the problems are resampled (their traces together)
    lo, hi = percentile_interval([error_correct_f1([preds[i] for i in pick], [firsts[i] for i in pick]).f1
                                  for pick in problem_draws([tr.problem_id for _, tr in recs], n_boot, seed)])
    step_pred = [s >= tau for lab, _ in recs for s in lab.scores]
    step_true = [bool(x) for _, tr in recs for x in tr.labels]
    process_only = [(p, f) for (_, tr), p, f in zip(recs, preds, firsts, strict=True) if tr.correct and f >= 0]
    return {"labeler": name, "level": level, "traces": len(recs), "tau": tau, "f1": result.f1,
            "f1_low": lo, "f1_high": hi, "error_accuracy": result.error_accuracy,
            "correct_accuracy": result.correct_accuracy, "n_error": result.n_error, "n_correct": result.n_correct,
            "step_balanced_accuracy": _balanced(step_pred, step_true),
            "cot_balanced_accuracy": _balanced([p == -1 for p in preds], [f == -1 for f in firsts]),
            "process_only": len(process_only),
            "process_only_recall": (sum(p == f for p, f in process_only) / len(process_only)) if process_only
            else float("nan")}


def _tau(fit: list[tuple[StepLabels, StepLabels]]) -> float:
    """The tau that `choose_tau` chooses on (labels, truth) pairs."""
    return choose_tau([lab.scores for lab, _ in fit], [first_labeled_wrong(tr.labels) for _, tr in fit])[0]


def f1_per_ktokens(f1: float, tokens_per_trace: float) -> float:
    """First-error F1 in points per 1,000 tokens that labeling one trace costs: f1_per_ktokens(0.6, 500) = 120."""
    return 100 * f1 / (tokens_per_trace / 1000) if tokens_per_trace > 0 else float("nan")


def bench_rows(truth: Sequence[StepLabels], labels: Mapping[str, Mapping[str, StepLabels]], n_boot: int = 1000,
               seed: int = 0, seconds: Mapping[str, Mapping[str, float]] | None = None
               ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """A row per labeler and level (and "all") on the report half, tau from the choose half; and the coverage (common
    traces, what each labeler lacks). `seconds`: {labeler: {trace id: its seconds}}."""
    by_id = {t.trace_id: t for t in truth}
    ids, missing = common_traces(by_id, labels)
    if not ids:
        raise ValueError(f"no trace was labeled by every labeler (traces each lacks: {missing})")
    choose, report = split_problems(truth)
    rows = []
    for name, got in labels.items():
        for tid in ids:
            if len(got[tid].scores) != len(by_id[tid].labels):
                raise ValueError(f"{name}: {tid} has {len(got[tid].scores)} scores for {len(by_id[tid].labels)} steps")
        fit = [(got[t], by_id[t]) for t in ids if by_id[t].problem_id in choose]
        if not fit:
            raise ValueError(f"{name}: no labeled trace in the choose half")
        tau = _tau(fit)
        held = [(got[t], by_id[t]) for t in ids if by_id[t].problem_id in report]
        levels = sorted({tr.params["level"] for _, tr in held})
        by_level = {level: [(lab, tr) for lab, tr in fit if tr.params["level"] == level] for level in levels}
        level_taus = {level: _tau(mine) for level, mine in by_level.items() if mine}  # else the pooled tau applies
        for level in [*levels, "all"]:
            recs = [(lab, tr) for lab, tr in held if level == "all" or tr.params["level"] == level]
            row = _level_row(name, str(level), recs, tau, n_boot, seed)
            row["tau_level"] = level_taus.get(level)  # None in the "all" row: each level its own
            row["f1_level_tau"] = error_correct_f1(
                [first_step_below(lab.scores, level_taus.get(tr.params["level"], tau)) for lab, tr in recs],
                [first_labeled_wrong(tr.labels) for _, tr in recs]).f1
            paid = [t for t in ids if level == "all" or by_id[t].params["level"] == level]  # both halves
            spent = [got[t].cost for t in paid]
            row |= {key: sum(c.get(key, 0) for c in spent) for key in ("tokens_read", "tokens_generated")}
            row["labeled_traces"] = len(spent)
            if seconds is not None:
                timed = [seconds[name][t] for t in paid if t in seconds.get(name, {})]
                row["seconds"], row["timed_traces"] = round(sum(timed), 1), len(timed)
            row["steps_per_trace"] = sum(len(by_id[t].labels) for t in paid) / len(spent) if spent else float("nan")
            tokens = row["tokens_read"] + row["tokens_generated"]
            row["tokens_per_trace"] = tokens / len(spent) if spent else float("nan")
            row["f1_per_ktoken"] = f1_per_ktokens(row["f1"], row["tokens_per_trace"])
            rows.append(row)
    return rows, {"truth_traces": len(by_id), "common_traces": len(ids), "missing": missing,
                  "choose_problems": len(choose), "report_problems": len(report)}


def cost_scaling(rows: Sequence[dict[str, Any]], base: str) -> dict[str, dict[str, Any]]:
    """Per labeler, its tokens per trace over `base`'s at each level, and the exponent b of ratio ~ steps^b (least
    squares on log-log; MCNIG appendix A: IG/MCNIG cost O(N), OmegaPRM O(N log N), Math-Shepherd O(N^2) tokens)."""
    levels = {r["level"]: r for r in rows if r["labeler"] == base and r["level"] != "all"}
    out: dict[str, dict[str, Any]] = {}
    for name in dict.fromkeys(r["labeler"] for r in rows if r["labeler"] != base):
        mine = [(levels[r["level"]], r) for r in rows if r["labeler"] == name and r["level"] in levels]
        points = [(b["steps_per_trace"], r["tokens_per_trace"] / b["tokens_per_trace"]) for b, r in mine
                  if b["tokens_per_trace"] > 0 and r["tokens_per_trace"] > 0]
        exponent = (float(np.polyfit(np.log([x for x, _ in points]), np.log([y for _, y in points]), 1)[0])
                    if len({x for x, _ in points}) >= 2 else float("nan"))
        out[name] = {"ratio_by_level": {b["level"]: round(r["tokens_per_trace"] / b["tokens_per_trace"], 2)
                                        for b, r in mine if b["tokens_per_trace"] > 0},
                     "steps_by_level": {b["level"]: round(b["steps_per_trace"], 2) for b, _ in mine},
                     "exponent": exponent}
    return out


def _pair_figures(preds: Sequence[list[int]], firsts: list[int], steps: Sequence[list[tuple[bool, bool]]],
                  pick: list[int], step_pick: list[int]) -> tuple[float, float]:
    """(F1 of the first minus the second labeler, step balanced accuracy likewise) on the picked traces/steps."""
    f1 = [error_correct_f1([p[i] for i in pick], [firsts[i] for i in pick]).f1 for p in preds]
    bal = [_balanced([st[j][0] for j in step_pick], [st[j][1] for j in step_pick]) for st in steps]
    return f1[0] - f1[1], bal[0] - bal[1]


def paired_differences(truth: Sequence[StepLabels], labels: Mapping[str, Mapping[str, StepLabels]],
                       rows: Sequence[dict[str, Any]], pairs: Sequence[tuple[str, str]] | None = None,
                       n_boot: int = 1000, seed: int = 0) -> list[dict[str, Any]]:
    """Per pair (a, b) of labelers that both ran (`pairs`: the registered claims unless given), per level and "all":
    F1(a) - F1(b) and step balanced accuracy(a) - (b) on the report half, each at its own tau, with 95% intervals
    from one bootstrap of problems shared by both, and the share of draws where a's F1 is at least b's."""
    by_id = {t.trace_id: t for t in truth}
    ids, _ = common_traces(by_id, labels)
    _, report = split_problems(truth)
    held = [by_id[t] for t in ids if by_id[t].problem_id in report]
    taus = {r["labeler"]: r["tau"] for r in rows}
    out: list[dict[str, Any]] = []
    for a, b in claim_pairs() if pairs is None else pairs:
        if not {a, b} <= set(labels) or not {a, b} <= set(taus):
            continue
        for level in [*sorted({t.params["level"] for t in held}), "all"]:
            recs = [t for t in held if level == "all" or t.params["level"] == level]
            firsts = [first_labeled_wrong(t.labels) for t in recs]
            preds = [[first_step_below(labels[n][t.trace_id].scores, taus[n]) for t in recs] for n in (a, b)]
            steps = [[(s >= taus[n], bool(x)) for t in recs
                      for s, x in zip(labels[n][t.trace_id].scores, t.labels, strict=True)] for n in (a, b)]
            ends = [0, *accumulate(len(t.labels) for t in recs)]  # trace i's steps: ends[i] to ends[i + 1]
            d_f1, d_bal = _pair_figures(preds, firsts, steps, list(range(len(recs))), list(range(ends[-1])))
            draws = [_pair_figures(preds, firsts, steps, pick, [k for i in pick for k in range(ends[i], ends[i + 1])])
                     for pick in problem_draws([t.problem_id for t in recs], n_boot, seed)]
            f1_lo, f1_hi = percentile_interval([d for d, _ in draws if not math.isnan(d)])
            bal_lo, bal_hi = percentile_interval([d for _, d in draws if not math.isnan(d)])
            out.append({"labeler": a, "against": b, "level": str(level), "traces": len(recs), "f1_diff": d_f1,
                        "f1_diff_low": f1_lo, "f1_diff_high": f1_hi, "step_balanced_accuracy_diff": d_bal,
                        "step_balanced_accuracy_diff_low": bal_lo, "step_balanced_accuracy_diff_high": bal_hi,
                        "share_at_least": float(np.mean([d >= 0 for d, _ in draws])) if draws else float("nan")})
    return out
