"""The labeling recipe behind `prmkit label`, one for every labeler (`prmkit.label.base.Labeler`).

For each pool, each labeler labels the traces its methods still owe; records are appended (`AppendOnlyWriter`, one
method a file), so `kill -9` loses at most the problem in flight and a re-run resumes where it stopped. The labeler
calls run here or, with `ray` set, on Ray actors that each build the labelers once (`prmkit.generate.distributed`);
this process stays the only writer either way (the lines may come in another order). Here, a labeler with
`label_stream` is handed all its pools at once and batches the work of many pools together (rollouts up to
`batch_size` rows, forward passes up to `max_batch_tokens`), yielding each pool's records, the same as `label`'s, in
order as soon as they are done.

    reports = label_pools(read_pools("demo"), LabelConfig(method="ig,mcnig"), "runs/{method}.jsonl")
"""

from __future__ import annotations

import functools
import json
import os
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any

from prmkit.data.jsonl import AppendOnlyWriter, iter_json, open_ledger, read_ledger
from prmkit.data.lengths import check_lengths
from prmkit.data.locks import output_lock
from prmkit.data.outputs import claim_outputs
from prmkit.data.records import Pool
from prmkit.data.resume_settings import settings_diff
from prmkit.data.settings import LIMIT, comma_list
from prmkit.data.warn import warn
from prmkit.generate.distributed import Executor, LocalExecutor, Resident, ScaleConfig, make_executor
from prmkit.label.base import Labeled, Labeler
from prmkit.label.registry import LABELERS
from prmkit.label.threshold_files import apply_threshold, check_same_settings, read_tau, sweep_path
from prmkit.models.loading import context_length

__all__ = ["LabelConfig", "LabelReport", "build_labelers", "label_pools", "method_list", "output_paths", "read_clock",
           "run_labelers"]

# params keys some label files hold that never change a score: a re-run that lacks them continues the file
_SCORE_NEUTRAL_KEYS = ("exclude_final",)


@dataclass
class LabelConfig(ScaleConfig):
    """Settings of the labeling recipe (`prmkit label`; `ray`, `ray_actors`: where the labelers run); each
    labeler has its own settings dataclass."""

    method: str = field(default="mcnig", metadata={"help": "labeling method(s), comma-separated: the methods of "
                                                           "prmkit.label.registry.LABELERS; methods of one "
                                                           "labeler share its work per problem"})
    limit: int | None = field(default=None, metadata={"help": "label only the first N problems", "range": LIMIT})
    tau: float | None = field(default=None, metadata={"help": "fixed threshold; default: best balanced acc."})
    tau_from: str | None = field(default=None, metadata={"help": "take tau from another labeled file instead of "
                                                                 "choosing it here"})
    exclude_final: bool = field(default=True, metadata={"help": "threshold choice ignores the final step"})
    skip_too_long: bool = field(default=False, metadata={"help": "skip (and count) traces too long for the "
                                                                 "labeler instead of stopping with an error"})
    force_tau: bool = field(default=False, metadata={"help": "use the tau of tau_from even when that file was "
                                                             "labeled with another method or other settings"})


@dataclass
class LabelReport:
    """What one method's run did. Tokens (measured) and `labeler_seconds` are its labeler's, shared by the methods of
    that labeler; `seconds` is the wall time of the whole run, `labeler_seconds` the sum of the labeler's own calls
    (with several workers more than the wall time)."""

    method: str = ""
    output: str = ""
    problems: int = 0
    traces: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    resumed: int = 0
    tokens_read: int = 0
    tokens_generated: int = 0
    paper_tokens: int = 0
    seconds: float = 0.0
    labeler_seconds: float = 0.0
    sweeps: dict[str, dict[str, float]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """The fields and the rates (tokens per second, measured and by the paper's count)."""
        secs = self.seconds or float("nan")
        return asdict(self) | {"tokens_per_second": self.tokens_read / secs,
                               "paper_tokens_per_second": self.paper_tokens / secs}


def method_list(methods: str | Sequence[str]) -> list[str]:
    """"ig, mcnig" or ["ig", "mcnig"] -> ["ig", "mcnig"]; each must be a name in LABELERS. A method named twice
    is labeled once ("mcnig,ig,mcnig" -> ["mcnig", "ig"])."""
    names = list(dict.fromkeys(comma_list(methods)))
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
                settings: Sequence[Any] = (), progress: bool = True,
                clock: str | os.PathLike[str] | None = None) -> dict[str, LabelReport]:
    """Label all traces of `pools` with `cfg.method` (append-only, resumable), then apply the threshold.

    `output` names one file per method (see `output_paths`); `settings` the labelers' configs (e.g.
    `InformationConfig(model=...)`); `clock` a seconds ledger (`run_labelers`). Returns a report per method.
    """
    methods = method_list(cfg.method)
    outputs = output_paths(output, methods)
    if cfg.tau is not None and cfg.tau_from:
        raise ValueError("give tau or tau_from, not both")
    tau = read_tau(cfg.tau_from) if cfg.tau_from else cfg.tau
    pools = list(pools)
    sources = sorted({p.origin.rsplit(":", 1)[0] for p in pools if p.origin})  # the files the pools came from
    claimed = {f"--output ({m})" if len(outputs) > 1 else "--output": path for m, path in outputs.items()}
    claimed |= {f"sweep plot of {path}": str(sweep_path(path)) for path in outputs.values()}
    pools = pools[: cfg.limit] if cfg.limit else pools
    contexts = [c for s in settings if isinstance(getattr(s, "model", None), str) and (c := context_length(s.model))]
    pools, too_long = check_lengths(pools, min(contexts, default=None), "the labelers' model", cfg.skip_too_long)
    build = functools.partial(build_labelers, methods, tuple(settings))
    # one writer per output, from before the model loads to after the threshold; no output is an input
    with claim_outputs(claimed, {"--input": sources, "--tau-from": cfg.tau_from}):
        labelers = build()
        notes = {m: check_same_settings(cfg.tau_from, {"method": m, "params": lab.params(m)}, f"{m} labels",
                                        cfg.force_tau, "force_tau")
                 for lab in labelers for m in lab.methods} if cfg.tau_from else {}
        reports = run_labelers(pools, Resident(build, labelers), outputs, tau, cfg.exclude_final, progress,
                               cfg.skip_too_long, make_executor(cfg), clock)
    for m, note in notes.items():
        if note:
            reports[m].warnings.insert(0, note)
    for report in reports.values():
        _count(report, "traces too long", too_long)
    return reports


def _check_resume(path: str, params: dict[str, Any]) -> None:
    """A re-run may only extend a file made with the same settings: mixed records would be meaningless."""
    first = next((obj for _, obj in iter_json(path)), None) if Path(path).is_file() else None
    if first is not None and (diff := settings_diff(first.get("params", {}), params, skip=_SCORE_NEUTRAL_KEYS)):
        raise ValueError(f"{path} was labeled with other settings ({', '.join(diff)}); use a new output to relabel")


def _label_work(labelers: Resident[list[Labeler]], task: tuple[Pool, int, dict[str, set[str]]]) -> Labeled:
    """The work on one pool: `labelers[k].label(pool, owed)`; the labelers are built once where it runs."""
    pool, k, owed = task
    labeler = labelers.get()[k]
    return _timed(functools.partial(labeler.label, pool, owed))


def _timed(call: Callable[[], Labeled]) -> Labeled:
    """`call()` with its seconds in its cost: this labeler's own time, apart from the others of a run."""
    start = time.perf_counter()
    done = call()
    done.cost.seconds = time.perf_counter() - start
    return done


def _streamed(tasks: Sequence[tuple[Pool, int, dict[str, set[str]]]],
              labelers: Sequence[Labeler]) -> Iterator[tuple[int, Labeled]]:
    """The labeler calls of `tasks`, here, in order: each labeler's pools go to its `label_stream`, and each
    pool's result comes back with the seconds the labeler spent on it since the last."""
    streams: dict[int, Iterator[Labeled]] = {}
    for k, lab in enumerate(labelers):
        mine = [(pool, owed) for pool, j, owed in tasks if j == k]
        streams[k] = iter(lab.label_stream(mine))
    for i, (_, k, _) in enumerate(tasks):
        yield i, _timed(functools.partial(next, streams[k]))


def run_labelers(pools: Sequence[Pool], labelers: Sequence[Labeler] | Resident[list[Labeler]],
                 outputs: Mapping[str, str], tau: float | None = None, exclude_final: bool = True,
                 progress: bool = True, skip_too_long: bool = False,
                 executor: Executor | None = None, clock: str | os.PathLike[str] | None = None
                 ) -> dict[str, LabelReport]:
    """The recipe: label what `outputs` still lack (through `executor`, default here), then threshold each file
    (at `tau`, or the best one). On Ray, a `Resident` is rebuilt by each actor; plain labelers are pickled.

    Every output's lock is held from the resume check to the threshold rewrite. All inputs are checked
    (`_owed`) before the first labeler call: a trace too long for a labeler is an error naming its file:line,
    or, with `skip_too_long`, skipped and counted.

    `clock`: a JSONL ledger to which each labeler call appends `{"methods", "traces", "seconds"}` right after its
    records, so a resumed run's labels cost the sum over every run that wrote them (the records stay free of
    wall-clock noise); a method whose output does not exist yet starts with `{"methods", "reset": true}`, so the
    seconds of a file since deleted are not counted again."""
    if not isinstance(labelers, Resident):
        labelers = Resident(functools.partial(list, labelers), list(labelers))
    work, labelers = functools.partial(_label_work, labelers), labelers.get()
    served = [m for lab in labelers for m in lab.methods]
    if sorted(served) != sorted(outputs):
        raise ValueError(f"the labelers serve {served} but outputs are given for {sorted(outputs)}")
    reports = {m: LabelReport(method=m, output=outputs[m]) for m in served}
    start = time.perf_counter()
    with ExitStack() as held:
        for path in outputs.values():
            held.enter_context(output_lock(path))
        for lab in labelers:
            for m in lab.methods:
                _check_resume(outputs[m], lab.params(m))
        fresh = [path for path in outputs.values() if not Path(path).exists()]
        writers = {m: held.enter_context(AppendOnlyWriter(outputs[m], key=lambda d: d["trace_id"]))
                   for m in served}
        try:
            todo = _owed(pools, labelers, writers, reports, skip_too_long)
        except BaseException:  # an input error before any labeling leaves no empty output behind
            for path in fresh:
                Path(path).unlink(missing_ok=True)
            raise
        tasks = [(pool, k, owed) for pool, owing in todo for k, owed in owing.items()]
        local = executor is None or isinstance(executor, LocalExecutor)
        results = _streamed(tasks, labelers) if local else executor.map(work, tasks)
        timing = held.enter_context(open_ledger(clock)) if clock else None
        if timing and (restarted := [m for m in served if outputs[m] in fresh]):
            timing.write(json.dumps({"methods": restarted, "reset": True}) + "\n")  # seconds of a deleted file
        for i, done in _progress(results, len(tasks), progress, ",".join(served)):
            _record(done, labelers[tasks[i][1]], writers, reports)
            if timing:
                _clock_line(timing, labelers[tasks[i][1]], done)
        for w in writers.values():
            w.close()
        for m, r in reports.items():
            r.seconds = time.perf_counter() - start
            r.sweeps = apply_threshold(outputs[m], tau, exclude_final)
            r.warnings += r.sweeps.pop("warnings")
            if not r.traces and not r.resumed:
                r.warnings.append(warn(_nothing_labeled(r)))
    return reports


def _nothing_labeled(report: LabelReport) -> str:
    """The warning of a method that labeled no trace (e.g. MCNIG on pools with no wrong answer), with the counts."""
    skips = ", ".join(f"{why} ({n})" for why, n in report.skipped.items()) or "none"
    return (f"{report.output}: {report.method} labeled no trace (skipped: {skips}), so no tau is chosen and the file "
            "is empty")


def _clock_line(file: IO[str], labeler: Labeler, done: Labeled) -> None:
    """One labeler call's seconds and the traces it labeled, appended to the seconds ledger and flushed."""
    traces = list(dict.fromkeys(r.trace_id for records in done.records.values() for r in records))
    file.write(json.dumps({"methods": list(labeler.methods), "traces": traces,
                           "seconds": round(done.cost.seconds, 3)}) + "\n")
    file.flush()


def read_clock(path: str | os.PathLike[str]) -> dict[str, dict[str, float]]:
    """{method: {trace id: seconds}} from a seconds ledger (`run_labelers`'s `clock`): each call's seconds shared
    evenly by the traces it labeled, summed over runs since the method's last reset; a torn line (a crash while
    writing) is skipped."""
    out: dict[str, dict[str, float]] = {}
    for entry in read_ledger(path):
        if entry.get("reset"):
            for m in entry["methods"]:
                out.pop(m, None)
        if not entry.get("traces"):
            continue
        share = entry["seconds"] / len(entry["traces"])
        for m in entry["methods"]:
            got = out.setdefault(m, {})
            for t in entry["traces"]:
                got[t] = got.get(t, 0.0) + share
    return out


def _count(report: LabelReport, reason: str, n: int = 1) -> None:
    if n:
        report.skipped[reason] = report.skipped.get(reason, 0) + n


def _owed(pools: Sequence[Pool], labelers: Sequence[Labeler], writers: Mapping[str, AppendOnlyWriter],
          reports: dict[str, LabelReport], skip_too_long: bool = False
          ) -> list[tuple[Pool, dict[int, dict[str, set[str]]]]]:
    """Per pool, per labeler (by index), per method: the trace ids not yet written. Skips are counted here
    (problems by the labeler's reason; "pools without traces"; "traces without steps"; "traces too long"),
    and so are problems already done (`resumed`)."""
    todo = []
    for pool in pools:
        work: dict[int, dict[str, set[str]]] = {}
        for k, lab in enumerate(labelers):
            for m in lab.methods:
                if not pool.traces:
                    _count(reports[m], "pools without traces")
                elif reason := lab.skip_reason(pool, m):
                    _count(reports[m], reason)
                elif ids := {t.id for t in pool.traces if t.id not in writers[m].done and t.steps}:
                    work.setdefault(k, {})[m] = ids
                elif any(t.steps for t in pool.traces):  # every trace with steps is written already
                    reports[m].resumed += 1
                _count(reports[m], "traces without steps",
                       sum(not t.steps and t.id not in writers[m].done for t in pool.traces))
            if k in work:
                _drop_unreadable(pool, lab, work[k], reports, skip_too_long)
                if not any(work[k].values()):
                    del work[k]
        if work:
            todo.append((pool, work))
    return todo


def _drop_unreadable(pool: Pool, lab: Labeler, work: dict[str, set[str]], reports: dict[str, LabelReport],
                     skip_too_long: bool) -> None:
    """Remove from `work` the traces `lab` cannot read (counted), or raise naming the first one."""
    bad = lab.unreadable(pool, set().union(*work.values()))
    if bad and not skip_too_long:
        tid, why = next(iter(bad.items()))
        where = pool.origin or f"problem {pool.problem.id}"
        raise ValueError(f"{where}: trace {tid}: {why}; shorten it, raise --max-step-tokens where the model "
                         "allows, or pass --skip-too-long to skip such traces")
    for m, ids in work.items():
        _count(reports[m], "traces too long", len(ids & bad.keys()))
        ids.difference_update(bad)


def _record(done: Labeled, labeler: Labeler, writers: Mapping[str, AppendOnlyWriter],
            reports: dict[str, LabelReport]) -> None:
    """One labeler call's records, appended; its costs, counted."""
    for m in labeler.methods:  # the call's measured tokens and seconds serve all of this labeler's methods
        reports[m].tokens_read += done.cost.tokens_read
        reports[m].tokens_generated += done.cost.tokens_generated
        reports[m].labeler_seconds += done.cost.seconds
    for m, records in done.records.items():
        for record in records:
            reports[m].traces += writers[m].write(record)
        reports[m].paper_tokens += done.cost.paper_tokens.get(m, 0)
        reports[m].problems += 1


def _progress(items: Iterable[Any], total: int, enabled: bool, desc: str) -> Iterable[Any]:
    if not enabled:
        return items
    from tqdm import tqdm

    return tqdm(items, total=total, desc=f"label {desc}", unit="problem")
