"""`prmkit threshold`: choose tau on one StepLabels file, write the labels into it and into others."""

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from prmkit.data.join import read_labels
from prmkit.data.jsonl import iter_json, read_records, write_records
from prmkit.data.manifest import settings_diff
from prmkit.data.outputs import claim_outputs
from prmkit.data.records import StepLabels
from prmkit.data.settings import check_limits
from prmkit.data.warn import warn
from prmkit.label.threshold import Sweep, balanced_accuracy, cot_scores, missing_classes, plot_sweep, sweep_threshold

__all__ = ["ThresholdConfig", "apply_threshold", "check_same_settings", "read_settings", "read_tau", "sweep_path",
           "threshold_files"]


@dataclass
class ThresholdConfig:
    """Settings of `prmkit threshold` (MCNIG paper sec 3.2.3 and 4.3: tau by balanced accuracy, final step out)."""

    choose_on: str = field(default="", metadata={"help": "StepLabels file to choose tau on (its labels are "
                                                         "rewritten); required"})
    apply_to: list[str] = field(default_factory=list, metadata={"help": "further StepLabels files to label with "
                                                                        "that tau (their held-out figure)"})
    tau: float | None = field(default=None, metadata={"help": "use this tau instead of choosing one"})
    include_final: bool = field(default=False, metadata={"help": "the CoT check includes the final step"})
    force: bool = field(default=False, metadata={"help": "apply tau to files labeled with another method or other "
                                                         "settings (their scores are on another scale: an error "
                                                         "without this)"})

    def __post_init__(self) -> None:
        check_limits(self)


def _first_record(path: str | os.PathLike[str]) -> dict[str, Any]:
    return next((obj for _, obj in iter_json(path)), {})


def sweep_path(path: str | os.PathLike[str]) -> Path:
    """Where the sweep plot of a label file goes: `runs/mcnig.jsonl` -> `runs/mcnig.sweep.png`."""
    return Path(path).with_suffix(".sweep.png")


def read_tau(path: str | os.PathLike[str]) -> float:
    """The threshold written into a labeled file (its first record's), to reuse it on other data."""
    tau = _first_record(path).get("threshold")
    if tau is None:
        raise ValueError(f"tau_from {path}: its first record has no threshold (label it to the end)")
    return float(tau)


def read_settings(path: str | os.PathLike[str]) -> dict[str, Any]:
    """{"method", "params"} of a StepLabels file (its first record's): what its scores, and so its tau, mean."""
    first = _first_record(path)
    return {"method": first.get("method"), "params": first.get("params", {})}


def check_same_settings(source: str | os.PathLike[str], target: dict[str, Any], where: str,
                        force: bool = False, flag: str = "force") -> str | None:
    """Raise if `source`'s scores were made with other settings than `target`'s (a tau does not transfer); with
    `force`, warn and return the warning."""
    have = read_settings(source)
    diff = [f"method {have['method']!r} vs {target.get('method')!r}"] if have["method"] != target.get("method") else []
    diff += settings_diff(have["params"] or {}, target.get("params") or {}, skip=("exclude_final", "method"),
                          sep=" vs ")  # method: compared above
    if not diff:
        return None
    text = f"tau of {source} applied to {where}, labeled with other settings ({'; '.join(diff)})"
    if not force:
        raise ValueError(f"{text}: the scores are on another scale; pass --{flag.replace('_', '-')} ({flag}=True) "
                         f"to apply it anyway")
    return warn(text + " (forced)")


def apply_threshold(path: str | os.PathLike[str], tau: float | None = None, exclude_final: bool = True,
                    plot: bool = True, records: list[StepLabels] | None = None) -> dict[str, dict[str, float]]:
    """Choose tau on `path` (unless given), write the binary labels into it atomically, plot the sweep. Returns
    {"final_excluded", "final_included"}: the best tau and balanced accuracy on this file (upper bounds);
    {"applied"}: those at the tau written; {"warnings"}."""
    records = list(read_records(path, StepLabels.from_dict)) if records is None else records
    if not records:  # nothing labeled (every problem skipped, which the labeling run reports): no tau to choose
        return {"applied": {"tau": 0.0 if tau is None else tau}, "warnings": []}
    judged = [r for r in records if r.correct is not None]
    scores, truth = [r.scores for r in judged], np.asarray([bool(r.correct) for r in judged], dtype=bool)
    sweeps: dict[str, Sweep] = {name: sweep_threshold(scores, truth, excl) for name, excl in
                                (("final_excluded", True), ("final_included", False))} if judged else {}
    key = "final_excluded" if exclude_final else "final_included"
    chosen = tau if tau is not None else (sweeps[key].tau if key in sweeps else 0.0)
    warnings = [] if tau is not None or judged else [warn(
        f"{path}: no record has a verdict (`correct` is null in all {len(records)}): tau cannot be chosen by "
        "balanced accuracy, so 0.0 is written; give --tau, or label traces with verdicts")]
    warnings += [warn(f"{path}: no {name} CoT among its {truth.size} judged traces: the balanced accuracy counts the "
                      f"{name} class as 0.5 (chance) and measures only the other class")
                 for name in missing_classes(truth)]
    applied: dict[str, float] = {"tau": chosen}
    if judged:  # the figure at the tau actually used: held out when tau came from another file
        applied["balanced_accuracy"] = balanced_accuracy(cot_scores(scores, exclude_final) > chosen, truth)
    for r in records:
        r.threshold = chosen
        r.labels = [1 if s > chosen else 0 for s in r.scores]
    write_records(path, records)  # atomic, under the output's lock (re-entrant when `prmkit label` holds it)
    if plot and sweeps:
        plot_sweep(sweeps, str(sweep_path(path)), f"{records[0].method}: {path}")
    return {name: {"tau": sw.tau, "balanced_accuracy": sw.balanced_accuracy, "n": len(judged)}
            for name, sw in sweeps.items()} | {"applied": applied, "warnings": warnings}


def threshold_files(cfg: ThresholdConfig) -> list[dict[str, Any]]:
    """Choose tau on `cfg.choose_on` (or take `cfg.tau`) and write it into that file and every `cfg.apply_to`;
    one `apply_threshold` summary per file (for apply_to files, "applied" is the held-out figure)."""
    if not cfg.choose_on:
        raise ValueError("threshold: choose_on (the file to choose tau on) is required")
    # --choose-on and --apply-to files are rewritten in place, each once, by this run alone
    claimed = {"--choose-on": cfg.choose_on, f"sweep plot of {cfg.choose_on}": str(sweep_path(cfg.choose_on))}
    claimed |= {f"--apply-to {path}": path for path in cfg.apply_to}
    with claim_outputs(claimed):
        # each file read whole once, every record checked, before anything is written
        files = {path: read_labels(path) for path in [cfg.choose_on, *cfg.apply_to]}
        mismatches = {path: check_same_settings(cfg.choose_on, read_settings(path), path, cfg.force)
                      for path in cfg.apply_to}  # what each file's scores mean: its first line
        chosen = apply_threshold(cfg.choose_on, cfg.tau, not cfg.include_final, records=files[cfg.choose_on])
        out: list[dict[str, Any]] = [{"choose_on": cfg.choose_on} | chosen]
        for path in cfg.apply_to:
            held = apply_threshold(path, chosen["applied"]["tau"], not cfg.include_final, False, files[path])
            held["warnings"] = ([mismatches[path]] if mismatches[path] else []) + held["warnings"]
            out.append({"apply_to": path} | held)
        return out
