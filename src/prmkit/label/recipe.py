"""The labeling recipe, one for every labeler: the pipeline behind `prmkit label`.

For each pool (problem), each labeler (`prmkit.label.base.Labeler`) labels the traces its methods still owe;
records are appended (`AppendOnlyWriter`, one method a file), so `kill -9` loses at most the problem in flight
and a re-run resumes where it stopped. A re-run into a file made with other settings is refused, naming the
difference. When all problems are done, tau is chosen by balanced accuracy (or given, or read from another
labeled file) and each file is rewritten atomically with the binary labels and its sweep plotted.

    reports = label_pools(read_pools("demo"), LabelConfig(method="ig,mcnig"), "runs/{method}.jsonl")
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from prmkit.data.jsonl import AppendOnlyWriter, iter_json
from prmkit.data.records import Pool
from prmkit.label.base import Labeler
from prmkit.label.registry import LABELERS
from prmkit.label.threshold_files import apply_threshold, check_same_settings, read_tau

__all__ = ["LabelConfig", "LabelReport", "build_labelers", "label_pools", "method_list", "output_paths", "run_labelers"]

# params keys that files written before the labeler interface stored, and that never changed a score
_LEGACY_KEYS = ("exclude_final",)


@dataclass
class LabelConfig:
    """Settings of the labeling recipe (`prmkit label`); each labeler has its own settings dataclass."""

    method: str = field(default="mcnig", metadata={"help": "labeling method(s), comma-separated, names in LABELERS "
                                                           "(ig, mcnig, ...); methods of one labeler share its "
                                                           "work per problem"})
    limit: int | None = field(default=None, metadata={"help": "label only the first N problems"})
    tau: float | None = field(default=None, metadata={"help": "fixed threshold; default: best balanced acc."})
    tau_from: str | None = field(default=None, metadata={"help": "take tau from another labeled file instead of "
                                                                 "choosing it here"})
    exclude_final: bool = field(default=True, metadata={"help": "threshold choice ignores the final step"})
    force_tau: bool = field(default=False, metadata={"help": "use the tau of tau_from even when that file was "
                                                             "labeled with another method or other settings"})


@dataclass
class LabelReport:
    """What one method's run did: problems and traces labeled now, skips by reason, problems already done
    (`resumed`), tokens (measured, shared by the methods of one labeler; and the paper's count), wall seconds
    and the threshold sweeps."""

    method: str = ""
    output: str = ""
    problems: int = 0
    traces: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    resumed: int = 0
    tokens_processed: int = 0
    tokens_generated: int = 0
    paper_tokens: int = 0
    seconds: float = 0.0
    sweeps: dict[str, dict[str, float]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """The fields and the rates (tokens per second, measured and by the paper's count)."""
        secs = self.seconds or float("nan")
        return asdict(self) | {"tokens_per_second": self.tokens_processed / secs,
                               "paper_tokens_per_second": self.paper_tokens / secs}


def method_list(methods: str | Sequence[str]) -> list[str]:
    """"ig, mcnig" or ["ig", "mcnig"] -> ["ig", "mcnig"]; each must be a name in LABELERS."""
    names = [m.strip() for m in (methods.split(",") if isinstance(methods, str) else methods) if m.strip()]
    if unknown := [m for m in names if m not in LABELERS]:
        raise ValueError(f"unknown method {unknown}; choose from {sorted(LABELERS)}")
    if not names:
        raise ValueError("no labeling method given")
    return names


def output_paths(output: str | os.PathLike[str] | Mapping[str, str], methods: Sequence[str]) -> dict[str, str]:
    """One output file per method: `output` with `{method}` filled in ("runs/{method}.jsonl"), a single path
    when one method is asked for, or an explicit {method: path}."""
    if isinstance(output, Mapping):
        if set(output) != set(methods):
            raise ValueError(f"need one output per method {list(methods)}, got {sorted(output)}")
        return {m: str(output[m]) for m in methods}
    output = str(output)
    if len(methods) > 1 and "{method}" not in output:
        raise ValueError("with several methods, the output must contain {method}")
    return {m: output.replace("{method}", m) for m in methods}


def build_labelers(methods: Sequence[str], settings: Sequence[Any] = ()) -> list[Labeler]:
    """One labeler per registered class, serving all the `methods` that map to it. `settings` holds labeler
    config instances; a labeler whose config class is not among them gets its defaults."""
    by_class = {type(s): s for s in settings}
    groups: dict[type, list[str]] = {}
    for m in methods:
        groups.setdefault(LABELERS[m], []).append(m)
    return [cls(by_class[cls.config_class] if cls.config_class in by_class else cls.config_class(), tuple(ms))
            for cls, ms in groups.items()]


def label_pools(pools: Iterable[Pool], cfg: LabelConfig, output: str | os.PathLike[str] | Mapping[str, str],
                settings: Sequence[Any] = (), progress: bool = True) -> dict[str, LabelReport]:
    """Label all traces of `pools` with `cfg.method` (append-only, resumable), then apply the threshold.

    `output` names one file per method (see `output_paths`); `settings` the labelers' configs (e.g.
    `InformationConfig(model=...)`). Returns a report per method.
    """
    methods = method_list(cfg.method)
    outputs = output_paths(output, methods)
    if cfg.tau is not None and cfg.tau_from:
        raise ValueError("give tau or tau_from, not both")
    tau = read_tau(cfg.tau_from) if cfg.tau_from else cfg.tau
    pools = list(pools)[: cfg.limit] if cfg.limit else list(pools)
    labelers = build_labelers(methods, settings)
    notes = {m: check_same_settings(cfg.tau_from, {"method": m, "params": lab.params(m)}, f"{m} labels",
                                    cfg.force_tau, "force_tau")
             for lab in labelers for m in lab.methods} if cfg.tau_from else {}
    reports = run_labelers(pools, labelers, outputs, tau, cfg.exclude_final, progress)
    for m, note in notes.items():
        if note:
            reports[m].warnings.insert(0, note)
    return reports


def _check_resume(path: str, params: dict[str, Any]) -> None:
    """A re-run may only extend a file made with the same settings: mixed records would be meaningless."""
    if not Path(path).is_file():
        return
    first = next((obj for _, obj in iter_json(path)), None)
    if first is None:
        return
    old = first.get("params", {})
    if diff := sorted(k for k in params.keys() | old.keys() if k not in _LEGACY_KEYS and old.get(k) != params.get(k)):
        changes = ", ".join(f"{k}: {old.get(k)!r} -> {params.get(k)!r}" for k in diff)
        raise ValueError(f"{path} was labeled with other settings ({changes}); use a new output to relabel")


def run_labelers(pools: Sequence[Pool], labelers: Sequence[Labeler], outputs: Mapping[str, str],
                 tau: float | None = None, exclude_final: bool = True,
                 progress: bool = True) -> dict[str, LabelReport]:
    """The recipe: label what `outputs` still lack, then threshold each file (at `tau`, or the best one)."""
    served = [m for lab in labelers for m in lab.methods]
    if sorted(served) != sorted(outputs):
        raise ValueError(f"the labelers serve {served} but outputs are given for {sorted(outputs)}")
    reports = {m: LabelReport(method=m, output=outputs[m]) for m in served}
    start = time.perf_counter()
    for lab in labelers:
        for m in lab.methods:
            _check_resume(outputs[m], lab.params(m))
    writers = {m: AppendOnlyWriter(outputs[m], key=lambda d: d["trace_id"]) for m in served}
    try:
        todo = _owed(pools, labelers, writers, reports)
        for pool, work in _progress(todo, progress, ",".join(served)):
            for k, owed in work.items():
                _label_one(pool, labelers[k], owed, writers, reports)
    finally:
        for w in writers.values():
            w.close()
    for m, r in reports.items():
        r.seconds = time.perf_counter() - start
        r.sweeps = apply_threshold(outputs[m], tau, exclude_final)
        r.warnings += r.sweeps.pop("warnings")
    return reports


def _owed(pools: Sequence[Pool], labelers: Sequence[Labeler], writers: Mapping[str, AppendOnlyWriter],
          reports: dict[str, LabelReport]) -> list[tuple[Pool, dict[int, dict[str, set[str]]]]]:
    """Per pool, per labeler (by index), per method: the trace ids not yet written; skips and problems already
    done (`resumed`) are counted here."""
    todo = []
    for pool in pools:
        work: dict[int, dict[str, set[str]]] = {}
        for k, lab in enumerate(labelers):
            for m in lab.methods:
                if reason := lab.skip_reason(pool, m):
                    reports[m].skipped[reason] = reports[m].skipped.get(reason, 0) + 1
                elif ids := {t.id for t in pool.traces if t.id not in writers[m].done}:
                    work.setdefault(k, {})[m] = ids
                else:
                    reports[m].resumed += 1
        if work:
            todo.append((pool, work))
    return todo


def _label_one(pool: Pool, labeler: Labeler, owed: dict[str, set[str]], writers: Mapping[str, AppendOnlyWriter],
               reports: dict[str, LabelReport]) -> None:
    """One labeler call on one pool; its records are appended as they come."""
    done = labeler.label(pool, owed)
    for m in labeler.methods:  # the call's measured tokens serve all of this labeler's methods
        reports[m].tokens_processed += done.cost.tokens_read
        reports[m].tokens_generated += done.cost.tokens_generated
    for m, records in done.records.items():
        for record in records:
            reports[m].traces += writers[m].write(record)
        reports[m].paper_tokens += done.cost.paper_tokens.get(m, 0)
        reports[m].problems += 1


def _progress(items: list[Any], enabled: bool, desc: str) -> Iterable[Any]:
    if not enabled:
        return items
    from tqdm import tqdm

    return tqdm(items, desc=f"label {desc}", unit="problem")
