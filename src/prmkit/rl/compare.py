"""`prmkit rl compare`: RL runs of several settings, several seeds each, side by side on their held-out curves, each
setting against the first (docs/rl.md, "The held-out curve, and runs side by side")."""

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from prmkit.data.jsonl import DataError
from prmkit.data.settings import Range, check_limits
from prmkit.evaluate.stats import bootstrap_ci
from prmkit.rl.compare_plots import plot_compare, plot_hacking
from prmkit.rl.compare_report import format_compare
from prmkit.rl.compare_stats import seed_interval, steps_to_reach
from prmkit.rl.config import SETTINGS
from prmkit.rl.logs import read_metrics

__all__ = ["CompareConfig", "compare_from_config", "compare_runs", "format_compare", "parse_groups"]

# held-out curve keys averaged over a setting's seeds (the minimum and maximum kept beside)
_CURVES = ("accuracy", "greedy_accuracy", "answered", "steps", "length")
_TRAINING = 10  # training steps averaged at the start and at the end for the hacking checks


@dataclass
class CompareConfig:
    """`prmkit rl compare NAME=RUN[,RUN...] ...`: the settings' runs, the first the baseline."""

    runs: list[str] = field(default_factory=list, metadata={
        "help": "a setting and its runs, NAME=RUN[,RUN...] (prmkit rl grpo outputs with --heldout-steps); the first "
                "is the baseline", "positional": True})
    output: str = field(default="", metadata={"help": "directory for compare.json, compare.md, compare.png, "
                                                      "hacking.png", "required": True})
    bootstrap: int = field(default=1000, metadata={"help": "bootstrap resamples (intervals over problems)",
                                                   "range": Range(1, 1_000_000)})

    def __post_init__(self) -> None:
        check_limits(self)


def compare_from_config(cfg: CompareConfig) -> dict[str, Any]:
    return compare_runs(parse_groups(cfg.runs), cfg.output or None, cfg.bootstrap)


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
    """A run's held-out curve {step: row}, report (if finished), settings, seed, training log and its cumulative
    generated tokens at each logged step."""
    rows = Path(path) / "heldout.jsonl"
    if not rows.is_file():
        raise FileNotFoundError(f"{path}: no heldout.jsonl (a prmkit rl grpo output with held-out problems)")
    curve = {r["step"]: r for r in read_metrics(rows)}
    if any("right" not in r for r in curve.values()):
        raise DataError(f"{rows}: lines without per-problem results ('right'): re-measure with this prmkit")
    for row in curve.values():  # tokens per held-out completion, sampled and greedy
        row["length"] = row["tokens"] / (row["samples"] + len(row["right"]))
    read = lambda name: json.loads(p.read_text(encoding="utf-8")) if (p := Path(path) / name).is_file() else {}  # noqa: E731
    report = read("report.json")
    config = report.get("config") or read(SETTINGS)
    held = (config.get("heldout_data") or config.get("data"), config.get("heldout_range")) if config else None
    metrics = read_metrics(Path(path) / "metrics.jsonl")
    batch = config.get("group_size", 0) * config.get("prompts_per_step", 0)
    tokens = np.cumsum([r.get("completions/mean_length", 0.0) * batch for r in metrics])
    return {"dir": str(path), "curve": curve, "report": report, "held": held, "seed": config.get("seed"),
            "metrics": metrics, "tokens": {0: 0.0} | {r["step"]: float(t) for r, t in zip(metrics, tokens, strict=True)}
            if metrics and batch else None}


def compare_runs(groups: Mapping[str, Sequence[str]], output: str | os.PathLike[str] | None = None,
                 bootstrap: int = 1000, seed: int = 0) -> dict[str, Any]:
    """Compare the runs of each setting (the first is the baseline); writes the outputs into `output` when given."""
    runs = {name: [_run(d) for d in dirs] for name, dirs in groups.items()}
    every = [r for rs in runs.values() for r in rs]
    sizes = {len(row["right"]) for r in every for row in r["curve"].values()}
    if len(sizes) != 1:
        raise ValueError(f"the runs were measured on different numbers of held-out problems ({sorted(sizes)})")
    if len(held := {r["held"] for r in every if r["held"]}) > 1:
        raise ValueError(f"the runs hold different held-out problems: {sorted(map(str, held))}")
    common = sorted(set.intersection(*(set(r["curve"]) for r in every)))
    if not common:
        raise ValueError("the runs share no evaluated step")
    curves = {name: _setting_curve(rs) for name, rs in runs.items()}
    base = next(iter(runs))
    target = _at(curves[base], common[-1])["accuracy"]
    rows = [_row(name, rs, runs[base], curves[name], common, target, bootstrap, seed) for name, rs in runs.items()]
    result = {"baseline": base, "step": common[-1], "heldout_problems": sizes.pop(), "baseline_final": target,
              "rows": rows, "curves": curves, "training": {name: _training(rs) for name, rs in runs.items()},
              "runs": {name: [r["dir"] for r in rs] for name, rs in runs.items()}}
    if output is not None:
        out = Path(output)
        out.mkdir(parents=True, exist_ok=True)
        (out / "compare.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
        (out / "compare.md").write_text(format_compare(result) + "\n", encoding="utf-8")
        plot_compare(curves, out / "compare.png")
        plot_hacking(curves, result["training"], out / "hacking.png")
    return result


def _row(name: str, rs: list[dict[str, Any]], base: list[dict[str, Any]], curve: list[dict[str, Any]],
         common: list[int], target: float, bootstrap: int, seed: int) -> dict[str, Any]:
    first, last = common[0], common[-1]
    start, final = _at(curve, first), _at(curve, last)
    gain = _fractions(rs, last) - _fractions(rs, first)
    gain_lo, gain_hi = bootstrap_ci(gain, bootstrap, seed) if bootstrap else (float("nan"),) * 2
    row = {"setting": name, "seeds": len(rs), "seed_list": [r["seed"] for r in rs], "step": last,
           **{f"{k}_before": start[k] for k in _CURVES}, **{k: final[k] for k in _CURVES},
           "accuracy_min": final["accuracy_min"], "accuracy_max": final["accuracy_max"],
           "gain": float(gain.mean()), "gain_low": gain_lo, "gain_high": gain_hi,
           "steps_to_baseline": steps_to_reach([p["step"] for p in curve], [p["accuracy"] for p in curve], target),
           "tokens_to_baseline": None if any(p["tokens"] is None for p in curve) else steps_to_reach(
               [p["tokens"] for p in curve], [p["accuracy"] for p in curve], target),
           **{key: [r["report"].get(key) for r in rs] for key in ("generated_tokens", "peak_rss_gb")},
           **{key: [None if (s := r["report"].get(key)) is None else round(s) for r in rs]
              for key in ("train_seconds", "cpu_seconds_this_run")}}
    if rs is base:
        return row | {"minus_baseline": None, "minus_baseline_low": None, "minus_baseline_high": None,
                      "minus_baseline_seeds": None}
    diff = _fractions(rs, last) - _fractions(base, last)
    lo, hi = bootstrap_ci(diff, bootstrap, seed) if bootstrap else (float("nan"),) * 2
    accuracy = lambda runs: [r["curve"][last]["accuracy"] for r in runs]  # noqa: E731
    return row | {"minus_baseline": float(diff.mean()), "minus_baseline_low": lo, "minus_baseline_high": hi,
                  "minus_baseline_seeds": seed_interval(accuracy(rs), row["seed_list"], accuracy(base),
                                                        [r["seed"] for r in base])}


def _fractions(runs: list[dict[str, Any]], step: int) -> np.ndarray:
    """Each held-out problem's fraction of right sampled completions at `step`, averaged over `runs`."""
    rows = [r["curve"][step] for r in runs]
    return np.mean([np.asarray(row["right"], dtype=float) / (row["samples"] / len(row["right"])) for row in rows],
                   axis=0)


def _setting_curve(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per step that every run of the setting measured: the mean, lowest and highest seed of each `_CURVES` key,
    and the mean generated training tokens up to that step (None unless every run logged its training)."""
    out = []
    for step in sorted(set.intersection(*(set(r["curve"]) for r in runs))):
        point: dict[str, Any] = {"step": step}
        for key in _CURVES:
            values = [r["curve"][step][key] for r in runs]
            point |= {key: float(np.mean(values)), f"{key}_min": min(values), f"{key}_max": max(values)}
        tokens = [r["tokens"].get(step) if r["tokens"] else None for r in runs]
        point["tokens"] = None if None in tokens else float(np.mean(tokens))
        out.append(point)
    return out


def _at(curve: list[dict[str, Any]], step: int) -> dict[str, Any]:
    return next(p for p in curve if p["step"] == step)


def _training(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The training log's hacking checks, averaged over the setting's runs per step: completion length, true
    accuracy and each scorer reward's mean; with their means over the first and the last `_TRAINING` steps."""
    keys = {"length": "completions/mean_length", "accuracy": "accuracy"} | {
        k.split("/")[1]: k for r in runs for row in r["metrics"] for k in row
        if k.startswith("rewards/") and k.endswith("/mean") and k != "rewards/outcome/mean"}
    steps = sorted(set.intersection(*(set(row["step"] for row in r["metrics"]) for r in runs)))
    by_step = [{row["step"]: row for row in r["metrics"]} for r in runs]
    curves = {name: [_mean([b[s].get(k) for b in by_step]) for s in steps] for name, k in keys.items()}
    ends = {name: [_mean(v[:_TRAINING]), _mean(v[-_TRAINING:])] for name, v in curves.items()}
    return {"steps": steps, "curves": curves, "first_last": ends, "scorers": sorted(set(keys) - {"length", "accuracy"})}


def _mean(values: Sequence[float | None]) -> float | None:
    there = [v for v in values if v is not None]
    return float(np.mean(there)) if there else None
