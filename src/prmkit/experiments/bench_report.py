"""The step-label bench's tables (table.md, with the key `LABELER_COLUMNS`) and its F1-against-tokens plot."""

import math
from pathlib import Path
from typing import Any

from prmkit.data.outputs import pyplot, save_figure
from prmkit.evaluate.stats import pct, pct_interval, signed_points

__all__ = ["LABELER_COLUMNS", "format_bench", "plot_f1_tokens"]


def _per_trace(row: dict[str, Any]) -> str:
    """A row's labeler seconds per timed trace; "n/a" without a seconds ledger, marked when some went untimed."""
    if not row.get("timed_traces"):
        return "n/a"
    part = "" if row["timed_traces"] == row["labeled_traces"] else f" ({row['timed_traces']} timed)"
    return f"{row['seconds'] / row['timed_traces']:.2f}{part}"


def _per_ktoken(x: float) -> str:
    """F1 per 1,000 tokens per trace: one decimal, two below 10 (a rollout labeler's few points)."""
    return "-" if math.isnan(x) else f"{x:.1f}" if x >= 10 else f"{x:.2f}"


# The labeler table's columns and what each one is: printed under the table (`prmkit bench`, table.md), one a line.
LABELER_COLUMNS: dict[str, str] = {
    "labeler": "the labeling method (prmkit label --method)",
    "level": "the problems' number of operations; all: every level together",
    "traces": "the report half's traces that every labeler labeled (tau is chosen on the other half, the choose half)",
    "F1 [95% CI]": "first-error F1, % (ProcessBench's: the predicted first error is the first step scoring below "
                   "tau, or none; one tau for all levels); the 95% interval resamples the report half's problems",
    "F1, tau per level": "the same F1 with each level's own tau, chosen on that level's choose half; far above F1: "
                         "the scores shift with the number of steps",
    "err acc": "of the traces with a wrong step, % whose first error is found exactly (the F1's error accuracy)",
    "ok acc": "of the traces with no wrong step, % with no step below tau (the F1's correct accuracy)",
    "step bal acc": "each step's label (score >= tau) against its truth (right before the first error, wrong from "
                    "it on): balanced accuracy, the mean of the two classes' recalls, %",
    "CoT bal acc": "a trace called right (no step below tau) against the truth (no wrong step): balanced accuracy, %",
    "process-only recall": "of the traces with a right final answer but a wrong step, % whose first error is found "
                           "exactly; (N): how many such traces",
    "tokens/trace": "tokens the labeler read and generated per trace, from its cost ledger (traces of both halves)",
    "F1 per 1k tok/trace": "F1 (points) / (tokens/trace / 1000): per trace, so levels, the all row and runs of any "
                           "size compare",
    "s/trace": "the labeler's own seconds per trace, summed over the runs that labeled them (N timed: only N traces "
               "were; n/a: no seconds ledger)",
}


def format_bench(report: dict[str, Any]) -> str:
    """The tables: the policy per level, then a row per labeler and level (report half; F1 with its interval)."""
    lines = []
    if report["policy"]:
        lines += [f"policy {report['policy'].get('model', report['settings']['model'])}: K = "
                  f"{report['policy']['k']} samples per problem",
                  "| level | problems | solve rate | pass@1 | pass@K |", "|---|---|---|---|---|"]
        for lv, r in report["policy"]["levels"].items():
            lines.append(f"| {lv} | {r['problems']} | {pct(r['solve_rate'])} | {pct(r['pass_at_1'])} | "
                         f"{pct(r['pass_at_k'])} |")
        lines.append("")
    cov = report["coverage"]
    if cov.get("truth_traces"):
        lines.append(f"labelers scored on the {cov['common_traces']} of {cov['truth_traces']} traces that all of "
                     f"them labeled ({cov['choose_problems']} problems choose tau, {cov['report_problems']} report)")
        for name, skipped in cov.get("excluded", {}).items():
            lines.append(f"  {name}: labeled no trace (skipped: {skipped or 'none'}), left out")
        for name, run in report["labelers"].items():
            if name in cov["missing"] and (cov["missing"][name] or run["skipped"]):
                lines.append(f"  {name}: lacks {cov['missing'][name]} traces (skipped: {run['skipped'] or 'none'})")
        lines.append("")
    lines += ["| " + " | ".join(LABELER_COLUMNS) + " |", "|---" * len(LABELER_COLUMNS) + "|"]
    for r in report["rows"]:
        f1 = pct_interval(r["f1"], r["f1_low"], r["f1_high"])
        po = f"{pct(r['process_only_recall'])} ({r['process_only']})"
        lines.append(f"| {r['labeler']} | {r['level']} | {r['traces']} | {f1} | {pct(r['f1_level_tau'])} | "
                     f"{pct(r['error_accuracy'])} | {pct(r['correct_accuracy'])} | {pct(r['step_balanced_accuracy'])}"
                     f" | {pct(r['cot_balanced_accuracy'])} | {po} | {r['tokens_per_trace']:.0f} | "
                     f"{_per_ktoken(r['f1_per_ktoken'])} | {_per_trace(r)} |")
    if report["rows"]:
        lines += ["", "key ('-' in a cell: undefined, no trace of that kind):"]
        lines += [f"- {column}: {meaning}" for column, meaning in LABELER_COLUMNS.items()]
    if report.get("cost_scaling"):
        lines += ["", "tokens per trace over MCNIG's, by level (exponent b of ratio ~ steps^b):"]
        for name, c in report["cost_scaling"].items():
            ratios = ", ".join(f"L{lv} {r}x" for lv, r in c["ratio_by_level"].items())
            lines.append(f"  {name}: {ratios}; b = {c['exponent']:.2f}")
    if report.get("differences"):
        lines += ["", "paired differences on the report half (each labeler at its own tau; 95% CI over problems; "
                  "share of bootstrap draws with F1 at least the other's):",
                  "| labeler | against | level | traces | F1 diff [95% CI] | step bal acc diff [95% CI] | share >= |",
                  "|---|---|---|---|---|---|---|"]
        for d in report["differences"]:
            lines.append(f"| {d['labeler']} | {d['against']} | {d['level']} | {d['traces']} | "
                         f"{signed_points(*(d[f'f1_diff{s}'] for s in ('', '_low', '_high')))} | "
                         f"{signed_points(*(d[f'step_balanced_accuracy_diff{s}'] for s in ('', '_low', '_high')))} | "
                         f"{pct(d['share_at_least'])} |")
    if report["labelers"]:
        lines += ["", "| labeler | its own s (this run) | tokens read | tokens generated |", "|---|---|---|---|"]
        for name, run in report["labelers"].items():
            shared = [m for m in run.get("shared_with", []) if m != name]
            note = f" (one labeler with {', '.join(shared)})" if shared else ""
            lines.append(f"| {name} | {run['seconds']}{note} | {run['tokens_read']} | {run['tokens_generated']} |")
    return "\n".join(lines)


def plot_f1_tokens(rows: list[dict[str, Any]], path: Path) -> None:
    """F1 against tokens per trace (log scale), one point per labeler and level, a line per labeler."""
    fig, ax = pyplot().subplots(figsize=(7, 4.5))
    for name in dict.fromkeys(r["labeler"] for r in rows):
        mine = [r for r in rows if r["labeler"] == name and r["level"] != "all" and r["tokens_per_trace"] > 0]
        if not mine:
            continue
        xs, ys = [r["tokens_per_trace"] for r in mine], [100 * r["f1"] for r in mine]
        ax.plot(xs, ys, marker="o", label=name)
        for r, x, y in zip(mine, xs, ys, strict=True):
            ax.annotate(f"L{r['level']}", (x, y), fontsize=7, xytext=(3, 3), textcoords="offset points")
    ax.set_xscale("log")
    ax.set_xlabel("tokens per trace (read + generated)")
    ax.set_ylabel("first-error F1 (%), report half")
    ax.set_title("step-label bench: quality against cost per level")
    ax.legend(fontsize=8)
    fig.tight_layout()
    save_figure(fig, path)


def format_bench_run(report: dict[str, Any], cfg: Any) -> str:
    return (format_bench(report) + f"\nwrote {cfg.output}/report.json, table.md"
            + (", f1_tokens.png" if report["rows"] else ""))
