"""Each PUM student's solve rate per level of bench problems, from the question alone and after a right prefix
(`prmkit pum --solve-rates`): PUM assumes students that solve a fair share (pum_paper sec 3.1)."""

from collections.abc import Mapping, Sequence
from typing import Any

from prmkit.data.bench_checker import check_steps, first_wrong
from prmkit.data.records import Pool
from prmkit.generate.rollout import PrefixRequest
from prmkit.generate.rollout_records import Rollout
from prmkit.label.pum.students import pum_requests

__all__ = ["format_solve_rates", "right_prefix", "solve_rate_counts", "solve_rate_requests"]


def right_prefix(pool: Pool) -> tuple[str, int] | None:
    """(trace id, n) of the longest proper prefix of a trace of `pool` whose n steps the exact checker judges all
    right (the first such trace on a tie); None when every trace goes wrong at its first step."""
    if "graph" not in pool.problem.meta:
        raise ValueError(f"problem {pool.problem.id} is no bench problem (no computation graph to check its steps "
                         "against): solve rates need a bench's pools (prmkit bench --output DIR: DIR/pools.jsonl)")
    best: tuple[str, int] | None = None
    for t in pool.traces:
        first = first_wrong(check_steps(pool.problem, t.steps))
        n = min(len(t.steps) if first < 0 else first, len(t.steps) - 1)
        if n >= 1 and (best is None or n > best[1]):
            best = (t.id, n)
    return best


def solve_rate_requests(pools: Sequence[Pool]) -> tuple[list[PrefixRequest], dict[str, str | None]]:
    """The requests (each problem's baseline, then its right prefix) and {problem id: the right prefix's id or None}."""
    found = {pool.problem.id: right_prefix(pool) for pool in pools}
    chosen = {pid: None if cut is None else f"{cut[0]}@{cut[1]}" for pid, cut in found.items()}
    return pum_requests(pools, {pid: [] if cut is None else [cut] for pid, cut in found.items()}), chosen


def _add(row: dict[str, Any], key: str, record: Rollout) -> None:
    row[key][0] += record.solved
    row[key][1] += len(record.continuations)


def solve_rate_counts(pools: Sequence[Pool], chosen: Mapping[str, str | None],
                      rolled: Mapping[str, Rollout]) -> dict[str, dict[str, Any]]:
    """One student's counts per level (and "all") from `rolled` {prefix id: Rollout}; a problem lacking its
    baseline record (a run stopped partway) is left out."""
    levels: dict[str, dict[str, Any]] = {}
    shares: dict[str, list[float]] = {}
    for pool in pools:
        baseline = rolled.get(f"{pool.problem.id}@0")
        if baseline is None:
            continue
        level = str(pool.problem.meta.get("level", "-"))
        prefix_id = chosen.get(pool.problem.id)
        for key in (level, "all"):
            row = levels.setdefault(key, {"problems": 0, "question": [0, 0], "prefix": [0, 0], "no_right_prefix": 0,
                                          "prefix_share": 0.0})
            row["problems"] += 1
            _add(row, "question", baseline)
            if prefix_id is None:
                row["no_right_prefix"] += 1
            elif (record := rolled.get(prefix_id)) is not None:
                _add(row, "prefix", record)
                trace_id = prefix_id.rsplit("@", 1)[0]
                steps = next(len(t.steps) for t in pool.traces if t.id == trace_id)
                shares.setdefault(key, []).append(record.prefix_steps / steps)
    for key, row in levels.items():
        row["prefix_share"] = round(sum(shares[key]) / len(shares[key]), 3) if shares.get(key) else None
    order = sorted((k for k in levels if k != "all"), key=lambda k: (not k.isdigit(), int(k) if k.isdigit() else 0))
    return {k: levels[k] for k in [*order, "all"] if k in levels}


def _rate(counts: Sequence[int]) -> str:
    solved, attempts = counts
    return f"{solved}/{attempts} ({100 * solved / attempts:.1f}%)" if attempts else "-"


def format_solve_rates(report: Mapping[str, Any]) -> str:
    """The table of `solve_rates.json`: a row per student and level."""
    lines = [f"students' solve rates (K = {report['k']} rollouts a prefix): solved/attempts from the question alone "
             "and after the longest right prefix of a sample",
             "| student | template | level | problems | from the question | from a right prefix | no right prefix "
             "| prefix share |", "|---|---|---|---|---|---|---|---|"]
    for name, student in report["students"].items():
        for level, row in student["levels"].items():
            share = "-" if row["prefix_share"] is None else f"{row['prefix_share']:.2f}"
            lines.append(f"| {name} | {student['template'] or 'few-shot'} | {level} | {row['problems']} | "
                         f"{_rate(row['question'])} | {_rate(row['prefix'])} | {row['no_right_prefix']} | {share} |")
    return "\n".join(lines)
