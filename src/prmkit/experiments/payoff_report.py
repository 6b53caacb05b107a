"""`prmkit payoff table`: the payoff rows side by side against majority voting, beside each row's label and training
cost (table.json, table.md, plots and a summary; docs/payoff.md)."""

import json
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prmkit.data.jsonl import DataError, iter_json, write_records
from prmkit.data.outputs import atomic_path, claim_outputs
from prmkit.data.settings import SEED, Range, check_limits
from prmkit.data.settings import field_help as _help
from prmkit.experiments.payoff import ROW
from prmkit.experiments.payoff_kept import fresh_fingerprint, is_kept, kept_scores, read_fresh, read_kept
from prmkit.experiments.payoff_seeds import format_seeds, seed_report, seed_summary

__all__ = ["PayoffTableConfig", "format_payoff", "payoff_table", "summary_rows", "table_from_config"]


def _read_row(spec: str) -> dict[str, Any]:
    """A row directory or kept file, optionally @AGGREGATION (its step scores re-aggregated, named NAME/AGGREGATION)."""
    from prmkit.models.aggregate import AGGREGATIONS

    path, _, how = spec.rpartition("@")
    if not path or how not in AGGREGATIONS:
        path, how = spec, ""
    if is_kept(path):
        if not Path(path).is_file():
            raise FileNotFoundError(f"{path}: no such kept row")
        figures, steps = read_kept(path)
        row = {"name": None} | figures | {"kept": path, "steps": steps}
    else:
        file = Path(path, ROW)
        if not file.is_file():
            raise FileNotFoundError(f"{path}: no {ROW} (a `prmkit payoff run` output that finished)")
        row = {"name": None} | _row_record(file) | {"kept": None}
    row["name"] = (row["name"] or row["labeler"]) + (f"/{how}" if how else "")  # no --name: named by its labeler
    row["aggregation"], row["dir"] = how or None, path
    return row


# what `prmkit payoff run` writes into row.json and the table reads
_ROW_KEYS = ("labeler", "kind", "traces", "label_cost", "train", "fresh")


def _row_record(file: Path) -> dict[str, Any]:
    """A row.json read whole; cut short, not an object or lacking what the table reads: a DataError naming the file."""
    redo = f"run `prmkit payoff run` into {file.parent} again (its model and scores are kept)"
    try:
        row = json.loads(file.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        where = f", line {e.lineno} column {e.colno}" if isinstance(e, json.JSONDecodeError) else ""
        raise DataError(f"{file}: not a whole JSON document ({getattr(e, 'msg', e)}{where}): the row file is cut "
                        f"or damaged; {redo}") from None
    if not isinstance(row, dict) or (missing := [k for k in _ROW_KEYS if k not in row]):
        what = f"lacks {', '.join(missing)}" if isinstance(row, dict) else f"holds a {type(row).__name__}"
        raise DataError(f"{file}: {what}, not a row of `prmkit payoff run`; {redo}")
    return row


def _scores_file(row: dict[str, Any], scratch: Path, fresh: list | None) -> str:
    """The row's score file (a kept row's rebuilt from the fresh pools), re-aggregated into `scratch` when asked."""
    slug = row["name"].replace("/", "_").replace("@", "_").replace("#", "_")
    source = Path(row["dir"], "scores.jsonl")
    if row["kept"]:
        if fresh is None:
            raise ValueError(f"{row['kept']}: a kept row needs the fresh pools it scored: give --fresh")
        source = scratch / f"{slug}.kept.jsonl"
        kept_scores(row, row["steps"], fresh, source, row["kept"])
    if not row["aggregation"]:
        return str(source)
    from prmkit.models.aggregate import aggregate

    dest = scratch / f"{slug}.scores.jsonl"
    write_records(dest, (r | {"score": aggregate(r.get("step_scores") or [], row["aggregation"]),
                              "aggregation": row["aggregation"]} for _, r in iter_json(source)))
    return str(dest)


def _check_fresh(read: list[dict[str, Any]], fresh: list | None) -> None:
    """The rows must have scored one fresh set (kept rows are checked by fingerprint as their scores are rebuilt)."""
    paths = {Path(r["fresh"]["path"]).resolve() for r in read if not r["kept"]}
    if len(paths) > 1:
        raise ValueError("the rows scored different fresh sets: " + ", ".join(
            f"{r['name']}: {r['fresh']['path']}" for r in read if not r["kept"]))
    if paths and fresh is not None and fresh_fingerprint(read_fresh(paths.pop())) != fresh_fingerprint(fresh):
        raise ValueError("the row directories scored another fresh set than --fresh gives")


@dataclass
class PayoffTableConfig:
    """`prmkit payoff table ROW ...`: the rows and what the table reports of them."""

    rows: list[str] = field(default_factory=list, metadata={
        "help": "`prmkit payoff run` output directories or kept rows (NAME.jsonl.gz, with --fresh); ROW@AGGREGATION "
                "re-aggregates a row's step scores", "positional": True})
    fresh: str | None = field(default=None, metadata=_help(
        "the fresh pools the rows scored (gzipped or not): kept rows take their answers and verdicts from it"))
    output: str | None = field(default=None, metadata=_help("directory for table.json, table.md, payoff.png"))
    ks: str = field(default="", metadata=_help("K values, e.g. 1,2,4,8 (default: powers of 2 up to the largest pool)"))
    bootstrap: int = field(default=1000, metadata=_help("bootstrap resamples of the intervals",
                                                        range=Range(1, 1_000_000)))
    seed: int = field(default=0, metadata=_help("seed of the K-subsets and the bootstrap", range=SEED))
    against: str | None = field(default=None, metadata=_help(
        "a row's name: every other row's weighted voting and best-of-K minus that row's, paired by problem (95% "
        "intervals)"))
    summary: str | None = field(default=None, metadata=_help(
        "JSON file: a row per (row, K >= 2) with best-of-K and weighted voting minus majority voting [point, lo, hi], "
        "within-problem AUC, label tokens, training seconds"))

    def __post_init__(self) -> None:
        check_limits(self)


def table_from_config(cfg: PayoffTableConfig) -> dict[str, Any]:
    from prmkit.evaluate.run import ks_list

    return payoff_table(cfg.rows, cfg.output, ks_list(cfg.ks), cfg.bootstrap, cfg.seed, cfg.summary, cfg.against,
                        cfg.fresh)


def payoff_table(rows: Sequence[str], output: str | None = None, ks: Sequence[int] | None = None,
                 bootstrap: int = 1000, seed: int = 0, summary: str | None = None, against: str | None = None,
                 fresh: str | None = None) -> dict[str, Any]:
    """Every row's best-of-K and weighted voting against majority voting (`bok_report`) on the problems all rows
    scored, with each row's cost and within-problem AUC; files into `output`, a summary row per (row, K) to `summary`.
    `against`: a row whose weighted voting and best-of-K every other row is compared with (`row_differences`).
    `fresh`: the fresh pools, which kept rows need. Rows of one name but for `#sN`: `report["seeds"]`."""
    from prmkit.evaluate.bok import default_ks
    from prmkit.evaluate.report import bok_report, read_scores

    read = [_read_row(r) for r in rows]
    names = [r["name"] for r in read]
    if len(set(names)) < len(names):
        raise ValueError(f"two rows of one name: {names} (give each `prmkit payoff run` its own --name)")
    if taken := [n for n in names if n in ("single", "majority", "oracle")]:
        raise ValueError(f"row {taken[0]!r}: the table's baselines are named single, majority and oracle (pass@K); "
                         "give the row another --name")
    pools = read_fresh(fresh) if fresh else None
    _check_fresh(read, pools)
    inputs = [r["kept"] or str(Path(r["dir"], "scores.jsonl")) for r in read] + ([fresh] if fresh else [])
    with claim_outputs({"--output": output, "--summary": summary}, {"rows": inputs}, directories=("--output",)), \
            tempfile.TemporaryDirectory() as scratch:
        files = {r["name"]: _scores_file(r, Path(scratch), pools) for r in read}
        if not ks:  # powers of 2 up to the largest pool: K above a smaller pool uses all of it (noted in the table)
            ks = default_ks(max(len(recs) for recs in read_scores(next(iter(files.values()))).values()))
        values: dict = {}
        report = bok_report(files, ks, weighted=True, n_boot=bootstrap, seed=seed, values=values)
        if seeds := seed_report(read, values, ks, bootstrap, seed):
            report["seeds"] = seeds
        top = max(ks)
        diffs = {(d["method"], d["k"]): d for d in report["differences"]}
        report["costs"] = costs = [_cost_row(r, diffs, report, top) for r in read]
        if against is not None:
            if against not in files:
                raise ValueError(f"--against {against!r} is none of the rows: {', '.join(files)}")
            report["against"] = row_differences(files, against, list(ks), bootstrap, seed)
        if output:
            from prmkit.evaluate.plot import plot_payoff, plot_payoff_scale, plot_payoff_tokens

            out = Path(output)
            out.mkdir(parents=True, exist_ok=True)
            (out / "table.json").write_text(json.dumps(report, indent=1) + "\n")
            (out / "table.md").write_text(format_payoff(report) + "\n")
            fresh = f"({report['problems']} fresh problems)"
            plot_payoff(costs, out / "payoff.png", f"Best-of-{top} minus majority voting {fresh}")
            if any(c["label_tokens"] for c in costs):
                plot_payoff_tokens(costs, out / "payoff_tokens.png", f"Gain against label cost, K = {top} {fresh}")
            if len({c["train_problems"] for c in costs}) > 1:
                plot_payoff_scale(costs, out / "payoff_scale.png", f"Best-of-{top} minus majority voting {fresh}")
        if summary:
            with atomic_path(summary) as tmp:
                tmp.write_text(json.dumps(summary_rows(report, read) + seed_summary(report.get("seeds"), read),
                                          indent=1) + "\n")
    return report


def row_differences(files: dict[str, str], against: str, ks: list[int], bootstrap: int = 1000, seed: int = 0
                    ) -> list[dict[str, Any]]:
    """Each row's weighted voting and best-of-K minus row `against`'s at each K, paired by problem with a 95% interval.
    Rows {method, against, k, mean, lo, hi, problems}, method `weighted:NAME` or `NAME`."""
    from prmkit.evaluate.bok import difference_rows
    from prmkit.evaluate.report import candidate_pools, judged_problems, read_scores

    loaded = {name: read_scores(path) for name, path in files.items()}
    common = judged_problems(loaded[against], [p for p in loaded[against] if all(p in s for s in loaded.values())])
    out = []
    for selector, prefix in (("weighted", "weighted:"), ("best", "")):
        methods = {f"{prefix}{n}": (selector, candidate_pools(s, common)) for n, s in loaded.items()}
        out += difference_rows(methods, f"{prefix}{against}", ks, n_boot=bootstrap, seed=seed)
    return out


def _cost_row(r: dict[str, Any], diffs: dict[tuple[str, int], dict], report: dict[str, Any], top: int
              ) -> dict[str, Any]:
    """A row's gain at the largest K beside what its labels and training cost."""
    tokens = r["label_cost"]["tokens_read"] + r["label_cost"]["tokens_generated"]
    best, vote = diffs[(r["name"], top)], diffs[(f"weighted:{r['name']}", top)]
    return {"labeler": r["name"], "labels": r["labeler"] + (f"/{r['aggregation']}" if r["aggregation"] else ""),
            "kind": r["kind"], "label_tokens": tokens, "train_problems": r.get("train_problems"),
            "within_problem_auc": report["rank_robustness"][r["name"]]["within_problem_auc"],
            "label_tokens_generated": r["label_cost"]["tokens_generated"],
            "label_seconds": r["label_cost"].get("seconds"), "train_seconds": r["train"]["train_seconds"],
            "peak_rss_gb": r["train"]["peak_rss_gb"], "examples": r["train"]["examples"], "k": top,
            "best_minus_majority": [best["mean"], best["lo"], best["hi"]],
            "weighted_minus_majority": [vote["mean"], vote["lo"], vote["hi"]],
            "points_per_million_tokens": 100 * best["mean"] / (tokens / 1e6) if tokens else None}


def summary_rows(report: dict[str, Any], read: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """A row per (payoff row, K >= 2): best-of-K and weighted voting minus majority voting [point, lo, hi] (fractions),
    within-problem AUC, label tokens and training seconds."""
    diffs = {(d["method"], d["k"]): d for d in report["differences"]}
    out = []
    for r in read:
        name = r["name"]
        for k in report["ks"]:
            if k < 2:
                continue
            best, vote = diffs[(name, k)], diffs[(f"weighted:{name}", k)]
            out.append({"row": name, "labels": r["labeler"], "head": r["kind"], "traces": r["traces"],
                        "aggregation": r["aggregation"] or "as scored", "train_problems": r.get("train_problems"),
                        "seed": r.get("seed"), "k": k,
                        "bon_minus_majority": [round(best[x], 4) for x in ("mean", "lo", "hi")],
                        "weighted_minus_majority": [round(vote[x], 4) for x in ("mean", "lo", "hi")],
                        "within_problem_auc": round(report["rank_robustness"][name]["within_problem_auc"], 4),
                        "label_tokens": r["label_cost"]["tokens_read"] + r["label_cost"]["tokens_generated"],
                        "label_seconds": r["label_cost"].get("seconds"), "train_seconds": r["train"]["train_seconds"],
                        "peak_rss_gb": r["train"]["peak_rss_gb"], "fresh_problems": report["problems"]})
    return out


def _trained_on(cost: dict[str, Any]) -> str:
    """What a row's model trained on: traces, or pairs (two training rows each); "untrained" for `payoff score` rows."""
    if cost.get("examples") is None:
        return "?"
    if cost["examples"] == 0:
        return "untrained"
    return f"{cost['examples'] // 2:,} pairs" if cost["kind"] == "bt" else f"{cost['examples']:,} traces"


def format_payoff(report: dict[str, Any]) -> str:
    """`prmkit evaluate bok`'s tables, then a row per labeler: its gain at the largest K and what it cost."""
    from prmkit.evaluate.report import format_table, method_lines
    from prmkit.evaluate.stats import signed_points

    k = report["costs"][0]["k"] if report["costs"] else 0
    lines = [format_table(report), "", f"| row | head | best-of-{k} minus majority | weighted minus majority | "
             "within-problem AUC | label tokens | labeling s | points per 10^6 label tokens | trained on | "
             "training s | peak RSS GB |", "|---" * 11 + "|"]
    for c in report["costs"]:
        per = "n/a (no label tokens)" if c["points_per_million_tokens"] is None else \
            f"{c['points_per_million_tokens']:+.2f}"
        seconds = "?" if c["label_seconds"] is None else f"{c['label_seconds']:,.0f}"
        lines.append(f"| {c['labeler']} | {c['kind']} | {signed_points(*c['best_minus_majority'])} | "
                     f"{signed_points(*c['weighted_minus_majority'])} | {c['within_problem_auc']:.3f} | "
                     f"{c['label_tokens']:,} | {seconds} | {per} | {_trained_on(c)} | {c['train_seconds']:.0f} | "
                     f"{c['peak_rss_gb']:.2f} |")
    if report.get("against"):
        base = report["against"][0]["against"].removeprefix("weighted:")
        ks = sorted({d["k"] for d in report["against"]})
        lines += ["", f"| paired against {base} | " + " | ".join(f"K={k}" for k in ks) + " |",
                  "|---" * (1 + len(ks)) + "|"]
        lines += method_lines(report["against"], ks, lambda d: signed_points(d["mean"], d["lo"], d["hi"]))
    if report.get("seeds"):
        lines += format_seeds(report["seeds"])
    return "\n".join(lines)
