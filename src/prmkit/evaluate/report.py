"""From `prmkit score` files to the best-of-K table (MCNIG sec 3.5, Table 2): `<name>` is a model's best-of-K,
`weighted:<name>` its reward-weighted vote, on the problems every file holds (their traces must match)."""

import os
from collections.abc import Callable
from typing import Any

from prmkit.data.jsonl import DataError, iter_json
from prmkit.data.records import RecordError, check_score_record
from prmkit.data.warn import warn
from prmkit.evaluate.bok import Candidate, accuracies, bok_curves, default_ks, difference_rows
from prmkit.evaluate.rank import rank_robustness
from prmkit.evaluate.stats import pct, pct_interval, signed_points
from prmkit.models.aggregate import aggregate

__all__ = ["bok_report", "check_ks", "format_table", "judged_problems", "majority_warnings", "method_lines",
           "rank_warnings", "read_score_lines", "read_scores", "sample_warnings", "spread_warnings"]


def read_score_lines(path: str | os.PathLike[str], read: Callable[[dict], tuple[str, Any]]) -> dict[str, Any]:
    """{id: value} of every line of a score file, in file order, `read` giving a line's (id, value); a RecordError, an
    id scored twice or an empty file is a DataError naming the line."""
    if os.path.isdir(path):
        raise DataError(f"{path}: is a directory, expected a score file (JSONL written by `prmkit score`)")
    out: dict[str, Any] = {}
    seen: dict[str, int] = {}
    for lineno, rec in iter_json(path):
        try:
            rid, value = read(rec)
        except RecordError as e:
            raise DataError(f"{path}:{lineno}: {e}") from None
        if rid in seen:
            raise DataError(f"{path}:{lineno}: trace id {rid!r} is scored again (first at {path}:{seen[rid]}); "
                            "remove the copy")
        out[rid], seen[rid] = value, lineno
    if not out:
        raise DataError(f"{path}: no score records (the file is empty)")
    return out


def read_scores(path: str | os.PathLike[str]) -> dict[str, list[dict]]:
    """problem_id -> its score records in pool order (by `index`); a line that is no score record is a DataError."""
    by_problem: dict[str, list[dict]] = {}
    for rec in read_score_lines(path, lambda r: (check_score_record(r)["id"], r)).values():
        by_problem.setdefault(rec["problem_id"], []).append(rec)
    return {p: sorted(recs, key=lambda r: r["index"]) for p, recs in by_problem.items()}


def candidate_pools(scores: dict[str, list[dict]], problems: list[str], aggregation: str | None = None
           ) -> list[list[Candidate]]:
    """Candidates per problem; `aggregation` re-aggregates the stored step scores instead of using `score`."""
    value = (lambda r: aggregate(r["step_scores"], aggregation)) if aggregation else (lambda r: float(r["score"]))
    return [[Candidate(r["answer"], bool(r["correct"]), value(r), r.get("kind")) for r in scores[p]] for p in problems]


def judged_problems(scores: dict[str, list[dict]], problems: list[str]) -> list[str]:
    """The `problems` with a gold answer (no trace's `correct` is null); a ValueError when none has one."""
    judged = [p for p in problems if all(r["correct"] is not None for r in scores[p])]
    if problems and not judged:
        raise ValueError(f"none of the {len(problems)} problems has a gold answer (every trace's `correct` is "
                         "null): no accuracy can be computed; give the problems their answers and check the traces "
                         "again (`prmkit verify`) before scoring")
    return judged


def bok_report(score_files: dict[str, str], ks: list[int], weighted: bool = True, max_subsets: int = 256,
               n_boot: int = 1000, seed: int = 0, problems: slice = slice(None), aggregation: str | None = None,
               values: dict | None = None) -> dict:
    """Rows for single, majority, [weighted:<name>], <name>..., oracle, differences from majority, rank robustness and
    warnings. No `ks`: 1, 2, 4, ... up to the smallest pool. `values` receives the per-problem accuracies."""
    if not score_files:
        raise ValueError("give at least one score file (NAME=PATH)")
    loaded = {name: read_scores(path) for name, path in score_files.items()}
    first = next(iter(loaded.values()))
    shared = [p for p in first if all(p in s for s in loaded.values())]
    common = shared[problems]
    if shared and not common:
        raise ValueError(f"--problems-range {problems.start or ''}:{problems.stop or ''} selects none of the "
                         f"{len(shared)} problems the score files share")
    for name, s in loaded.items():
        for p in common:
            if [r["id"] for r in s[p]] != [r["id"] for r in first[p]]:
                raise ValueError(f"score file '{name}': traces of problem {p} differ from the first file")
    chosen, common = common, judged_problems(first, common)
    warnings = [warn(f"{len(chosen) - len(common)} of {len(chosen)} problems have no gold answer (a trace with "
                     "`correct` null): left out of every accuracy")] if len(common) < len(chosen) else []
    ks = ks or default_ks(min((len(first[p]) for p in common), default=1))
    base = candidate_pools(first, common)
    capped, more = check_ks(ks, [len(c) for c in base])
    warnings += more
    methods: dict[str, tuple[str, list[list[Candidate]]]] = {"single": ("single", base), "majority": ("majority", base)}
    scored = {n: candidate_pools(s, common, aggregation) for n, s in loaded.items()}
    if weighted:
        methods |= {f"weighted:{n}": ("weighted", pools) for n, pools in scored.items()}
    methods |= {n: ("best", pools) for n, pools in scored.items()}
    methods["oracle"] = ("oracle", base)
    values = values if values is not None else {}
    values |= accuracies(methods, ks, max_subsets, seed)
    rows = bok_curves(methods, ks, max_subsets, n_boot, seed, values)
    compared = {n: m for n, m in methods.items() if n not in ("single", "oracle")}  # the models and majority
    differences = difference_rows(compared, "majority", ks, max_subsets, n_boot, seed, values)
    ranks = {n: rank_robustness(pools) for n, pools in scored.items()}
    warnings += [w for n, r in ranks.items() for w in rank_warnings(n, r)]
    warnings += sample_warnings(len(common)) + majority_warnings(base, rows)
    warnings += [w for n, s in loaded.items() for w in spread_warnings(
        n, [c.score for cands in scored[n] for c in cands], [v for p in common for r in s[p] for v in
                                                             r.get("step_scores") or []])]
    return {"problems": len(common), "no_gold_answer": len(chosen) - len(common), "ks": ks, "rows": rows,
            "differences": differences, "rank_robustness": ranks, "k_capped": capped, "warnings": warnings}


def check_ks(ks: list[int], sizes: list[int]) -> tuple[dict[int, int], list[str]]:
    """({K: problems with fewer than K candidates}, warnings); a K above every pool is a ValueError."""
    if not sizes:
        raise ValueError("no problem is present in every score file")
    if bad := [k for k in ks if k < 1 or k > max(sizes)]:
        raise ValueError(f"K={bad} outside 1..{max(sizes)}: the largest pool has {max(sizes)} candidates "
                         f"(a larger K would repeat K={max(sizes)} under another name)")
    capped = {k: sum(n < k for n in sizes) for k in ks if any(n < k for n in sizes)}
    return capped, [warn(f"K={k}: {n} of {len(sizes)} problems have fewer than {k} candidates and use all of "
                         f"theirs (the column is marked K={k}*)") for k, n in capped.items()]


def rank_warnings(name: str, ranks: dict[str, float]) -> list[str]:
    """Why a rank percentile is nan: no problem of at least 2 candidates has a correct (incorrect) one."""
    return [warn(f"{name}: {key} rank percentile is undefined (nan): no problem with at least 2 candidates has a "
                 f"{kind} one") for key, kind in (("worst_correct", "correct"), ("best_incorrect", "incorrect"))
            if not ranks[f"problems_with_{kind}"]]


# below this many problems a bootstrap interval over problems is rough (its own error is large)
FEW_PROBLEMS = 50
# a model whose middle 90% of trace scores (probabilities) spans less than this barely tells traces apart
NARROW_SPREAD = 0.1


def sample_warnings(problems: int) -> list[str]:
    """An interval resampled from fewer than FEW_PROBLEMS problems is rough: say so."""
    if problems >= FEW_PROBLEMS:
        return []
    return [warn(f"only {problems} problems: the 95% intervals resample so few problems that they are rough "
                 f"(read a difference as a real gain only with at least {FEW_PROBLEMS} problems)")]


def majority_warnings(pools: list[list[Candidate]], rows: list[dict]) -> list[str]:
    """Warnings where majority voting is no usable baseline: no two candidates share an answer in most problems, or it
    does worse than one random candidate (wrong answers agree more often than right ones, as in constructed pools)."""
    answered = [[c.answer for c in cands if c.answer is not None] for cands in pools]
    distinct = sum(len(a) > 1 and len(set(a)) == len(a) for a in answered)
    out = []
    if distinct * 2 > len(pools):
        out.append(warn(f"in {distinct} of {len(pools)} problems no two candidates share an answer, so majority "
                        "voting picks at random there: a reward model's gain over it is a gain over chance"))
    mean = {(r["method"], r["k"]): r["mean"] for r in rows}
    k = max(r["k"] for r in rows)
    if mean[("majority", k)] < mean[("single", k)] - 1e-9:
        out.append(warn(f"at K={k} majority voting ({pct(mean[('majority', k)])}%) does worse than one random "
                        f"candidate ({pct(mean[('single', k)])}%): wrong answers agree more often than right "
                        "ones in these pools (constructed pools, such as the demo's, are built so), so a gain over "
                        "majority voting is no gain over a usable baseline"))
    return out


def spread_warnings(name: str, trace_scores: list[float], step_scores: list[float]) -> list[str]:
    """Warnings for probability scores that barely vary across traces, or step scores all on one side of 0.5."""
    scores, steps = sorted(map(float, trace_scores)), list(map(float, step_scores))
    if not scores or not all(0.0 <= v <= 1.0 for v in scores + steps):
        return []  # not probabilities (e.g. a value head): no fixed scale to judge the spread on
    lo, hi = scores[int(0.05 * (len(scores) - 1))], scores[int(0.95 * (len(scores) - 1))]
    out = []
    if hi - lo < NARROW_SPREAD:
        out.append(warn(f"{name}: 90% of its trace scores lie within [{lo:.3f}, {hi:.3f}]: the model barely tells "
                        "the traces apart, its picks ride on small differences"))
    if steps and (max(steps) < 0.5 or min(steps) > 0.5):
        side = "below" if max(steps) < 0.5 else "above"
        out.append(warn(f"{name}: every step score is {side} 0.5 (from {min(steps):.3f} to {max(steps):.3f}): as a "
                        f"step classifier it calls every step {'wrong' if side == 'below' else 'right'}"))
    return out


def method_lines(rows: list[dict], ks: list[int], cell: Callable[[dict], str]) -> list[str]:
    """A markdown line per method of `rows` (first-appearance order): the method, then `cell` of its row at each K."""
    cells = {(r["method"], r["k"]): r for r in rows}
    return [f"| {m} | " + " | ".join(cell(cells[m, k]) for k in ks) + " |" for m in dict.fromkeys(m for m, _ in cells)]


def format_table(report: dict) -> str:
    """Markdown: a row per method, a column per K, `mean [lo, hi]` in percent; the differences; rank robustness."""
    ks, capped = report["ks"], report.get("k_capped", {})
    head = " | ".join(f"K={k}*" if k in capped else f"K={k}" for k in ks)
    table = lambda first, rows, cell: [f"| {first} | {head} |", "|---" * (len(ks) + 1) + "|",  # noqa: E731
                                       *method_lines(rows, ks, cell)]
    left_out = f"; {n} without a gold answer left out" if (n := report.get("no_gold_answer")) else ""
    lines = [f"best-of-K over {report['problems']} problems{left_out} (mean [95% bootstrap interval], %)",
             *table("method", report["rows"], lambda r: pct_interval(r["mean"], r["lo"], r["hi"]))]
    lines += [f"*K={k}: {n} problems have fewer than {k} candidates and use all of theirs" for k, n in capped.items()]
    if report.get("differences"):
        lines += ["", *table("minus majority voting (paired by problem)", report["differences"],
                             lambda r: signed_points(r["mean"], r["lo"], r["hi"]))]
    lines += ["", "| model | worst-correct rank pct (higher better) | best-incorrect rank pct (lower better) |",
              "|---|---|---|"]
    rank = lambda r, key, kind: (f"{r[key]:.3f}" if r[f"problems_with_{kind}"]  # noqa: E731
                                 else f"n/a (no problem has a {kind} candidate)")
    for name, r in report["rank_robustness"].items():
        lines.append(f"| {name} | {rank(r, 'worst_correct', 'correct')} | {rank(r, 'best_incorrect', 'incorrect')} |")
    return "\n".join(lines)
