"""`prmkit rl compare`: RL runs of several reward settings, several seeds each, side by side on their held-out curves.

    prmkit rl compare outcome=runs/rl/outcome_s0,runs/rl/outcome_s1 pum=runs/rl/pum_s0,runs/rl/pum_s1 \\
        --output runs/rl/compare

Each run is a `prmkit rl grpo` output with a held-out curve (`heldout.jsonl`, written with `--heldout-steps`; all runs
on the same held-out problems). Per setting and evaluated step: the mean over its seeds of the sampled and greedy
accuracy, the answer rate and the steps per completion, with the lowest and highest seed (the spread). Per setting,
at the last step every run reached: its final accuracy, and its difference from the first setting (the baseline)
with a 95% interval that bootstraps the held-out problems, paired (each problem's right fraction, averaged over a
setting's seeds, minus the baseline's on the same problem), and its gain over training (the last step minus the
first, paired the same way). The reward-hacking checks stand beside accuracy: a
setting whose answer rate or step count moves while accuracy does not is optimising its reward, not the task.
Generated tokens and wall time come from each run's `report.json`.

Writes `compare.json`, `compare.md` (the table) and `compare.png` (the curves, mean and spread per setting).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from prmkit.data.jsonl import DataError
from prmkit.evaluate.stats import bootstrap_ci, signed_points
from prmkit.rl.logs import read_metrics

__all__ = ["compare_runs", "format_compare", "parse_groups"]

# curve key -> its panel's title in compare.png
_CURVES = {"accuracy": "held-out accuracy (sampled)", "greedy_accuracy": "held-out accuracy (greedy)",
           "answered": "answered", "steps": "steps per completion"}


def parse_groups(items: Sequence[str]) -> dict[str, list[str]]:
    """["outcome=a,b", "pum=c"] -> {"outcome": ["a", "b"], "pum": ["c"]} (the first setting is the baseline)."""
    groups: dict[str, list[str]] = {}
    for item in items:
        name, sep, dirs = item.partition("=")
        if not sep or not name.strip() or not dirs.strip():
            raise ValueError(f"'{item}': give NAME=RUN_DIR[,RUN_DIR...]")
        if name.strip() in groups:
            raise ValueError(f"setting '{name.strip()}' given twice")
        groups[name.strip()] = [d.strip() for d in dirs.split(",") if d.strip()]
    if not groups:
        raise ValueError("give at least one setting NAME=RUN_DIR[,RUN_DIR...]")
    return groups


def _run(path: str) -> dict[str, Any]:
    """A run's held-out curve {step: row}, its report (if finished) and its held-out problems' settings."""
    rows = Path(path) / "heldout.jsonl"
    if not rows.is_file():
        raise FileNotFoundError(f"{path}: no heldout.jsonl (a prmkit rl grpo output with held-out problems)")
    curve = {r["step"]: r for r in read_metrics(rows)}
    if any("right" not in r for r in curve.values()):
        raise DataError(f"{rows}: lines without per-problem results ('right'): re-measure with this prmkit")
    report_path = Path(path) / "report.json"
    report = json.loads(report_path.read_text(encoding="utf-8")) if report_path.is_file() else {}
    config = report.get("config", {})
    held = (config.get("heldout_data") or config.get("data"), config.get("heldout_range")) if report else None
    return {"dir": str(path), "curve": curve, "report": report, "held": held}


def compare_runs(groups: Mapping[str, Sequence[str]], output: str | os.PathLike[str] | None = None,
                 bootstrap: int = 1000, seed: int = 0) -> dict[str, Any]:
    """Compare the runs of each setting (module doc); writes the outputs when `output` is given."""
    runs = {name: [_run(d) for d in dirs] for name, dirs in groups.items()}
    every = [r for rs in runs.values() for r in rs]
    sizes = {len(row["right"]) for r in every for row in r["curve"].values()}
    if len(sizes) != 1:
        raise ValueError(f"the runs were measured on different numbers of held-out problems ({sorted(sizes)})")
    if len(held := {r["held"] for r in every if r["report"]}) > 1:
        raise ValueError(f"the runs hold different held-out problems: {sorted(map(str, held))}")
    common = sorted(set.intersection(*(set(r["curve"]) for r in every)))
    if not common:
        raise ValueError("the runs share no evaluated step")
    last = common[-1]
    curves = {name: [_mean_row(step, [r["curve"][step] for r in rs]) for step in common] for name, rs in runs.items()}
    per_problem = {name: _fractions(rs, last) for name, rs in runs.items()}
    base = next(iter(runs))
    rows = []
    for name, rs in runs.items():
        final = curves[name][-1]
        diff = per_problem[name] - per_problem[base]
        lo, hi = bootstrap_ci(diff, bootstrap, seed) if name != base and bootstrap else (float("nan"),) * 2
        start = curves[name][0]
        gain = per_problem[name] - _fractions(rs, common[0])
        gain_lo, gain_hi = bootstrap_ci(gain, bootstrap, seed) if bootstrap else (float("nan"),) * 2
        rows.append({"setting": name, "seeds": len(rs), "step": last, "accuracy_before": start["accuracy"],
                     "accuracy": final["accuracy"], "accuracy_min": final["accuracy_min"],
                     "accuracy_max": final["accuracy_max"], "greedy_accuracy": final["greedy_accuracy"],
                     "gain": float(gain.mean()), "gain_low": gain_lo, "gain_high": gain_hi,
                     "answered_before": start["answered"], "answered": final["answered"],
                     "steps_before": start["steps"], "steps": final["steps"],
                     "minus_baseline": float(diff.mean()) if name != base else None,
                     "minus_baseline_low": lo if name != base else None,
                     "minus_baseline_high": hi if name != base else None,
                     "generated_tokens": [r["report"].get("generated_tokens") for r in rs],
                     "train_seconds": [None if (s := r["report"].get("train_seconds")) is None else round(s)
                                       for r in rs]})
    result = {"baseline": base, "step": last, "heldout_problems": sizes.pop(), "rows": rows, "curves": curves,
              "runs": {name: [r["dir"] for r in rs] for name, rs in runs.items()}}
    if output is not None:
        out = Path(output)
        out.mkdir(parents=True, exist_ok=True)
        (out / "compare.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
        (out / "compare.md").write_text(format_compare(result) + "\n", encoding="utf-8")
        plot_compare(curves, out / "compare.png")
    return result


def _fractions(runs: list[dict[str, Any]], step: int) -> np.ndarray:
    """Each held-out problem's fraction of right sampled completions at `step`, averaged over `runs`."""
    rows = [r["curve"][step] for r in runs]
    return np.mean([np.asarray(row["right"], dtype=float) / (row["samples"] / len(row["right"])) for row in rows],
                   axis=0)


def _mean_row(step: int, rows: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {"step": step}
    for key in _CURVES:
        values = [r[key] for r in rows]
        out |= {key: float(np.mean(values)), f"{key}_min": min(values), f"{key}_max": max(values)}
    return out


def format_compare(result: dict[str, Any]) -> str:
    """The table: per setting, held-out accuracy before and at the last common step (mean [min, max] over seeds),
    the difference from the baseline with its interval, and the reward-hacking checks."""
    lines = [f"held-out: {result['heldout_problems']} problems, step {result['step']}; baseline "
             f"{result['baseline']}; difference: mean over seeds per problem, 95% bootstrap interval over problems",
             "", "| setting | seeds | accuracy before | accuracy [min, max] | gain [95% CI] | greedy | "
             "minus baseline [95% CI] | answered before -> after | steps before -> after | generated tokens | "
             "train s |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in result["rows"]:
        diff = "-" if r["minus_baseline"] is None else signed_points(
            r["minus_baseline"], r["minus_baseline_low"], r["minus_baseline_high"])
        tokens = ", ".join(str(t) for t in r["generated_tokens"])
        secs = ", ".join(str(s) for s in r["train_seconds"])
        lines.append(f"| {r['setting']} | {r['seeds']} | {100 * r['accuracy_before']:.1f} | "
                     f"{100 * r['accuracy']:.1f} [{100 * r['accuracy_min']:.1f}, {100 * r['accuracy_max']:.1f}] | "
                     f"{signed_points(r['gain'], r['gain_low'], r['gain_high'])} | "
                     f"{100 * r['greedy_accuracy']:.1f} | {diff} | {r['answered_before']:.2f} -> {r['answered']:.2f} "
                     f"| {r['steps_before']:.2f} -> {r['steps']:.2f} | {tokens} | {secs} |")
    return "\n".join(lines)


def plot_compare(curves: dict[str, list[dict[str, Any]]], path: Path) -> None:
    """Held-out accuracy, greedy accuracy, answer rate and steps per completion against the step: a line per
    setting (mean over seeds) and a band from its lowest to its highest seed."""
    from prmkit.data.outputs import pyplot, save_figure

    plt = pyplot()
    fig, axes = plt.subplots(1, len(_CURVES), figsize=(3.3 * len(_CURVES), 3.1))
    for ax, (key, title) in zip(axes, _CURVES.items(), strict=True):
        for name, rows in curves.items():
            steps = [r["step"] for r in rows]
            line, = ax.plot(steps, [r[key] for r in rows], marker=".", label=name)
            ax.fill_between(steps, [r[f"{key}_min"] for r in rows], [r[f"{key}_max"] for r in rows],
                            color=line.get_color(), alpha=0.15)
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("step")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    save_figure(fig, path)
