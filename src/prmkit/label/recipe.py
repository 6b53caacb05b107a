"""The labeling recipe behind `prmkit label`, one for every labeler: resumable append-only output, the settings
check, the threshold and the report."""

import functools
import json
import os
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any

from prmkit.data.formats import DEMO_INPUT, read_pools
from prmkit.data.jsonl import AppendOnlyWriter, iter_json, open_ledger
from prmkit.data.lengths import check_lengths
from prmkit.data.locks import output_lock
from prmkit.data.manifest import settings_diff
from prmkit.data.outputs import claim_outputs
from prmkit.data.records import Pool
from prmkit.data.settings import LIMIT, comma_list
from prmkit.data.warn import warn
from prmkit.generate.distributed import Executor, LocalExecutor, Resident, ScaleConfig, make_executor
from prmkit.label.base import Labeled, Labeler
from prmkit.label.registry import LABELERS
from prmkit.label.threshold_files import apply_threshold, check_same_settings, read_tau, sweep_path
from prmkit.models.loading import context_length

__all__ = ["LabelConfig", "LabelReport", "build_labelers", "label_pools", "method_list", "output_paths",
           "run_label", "run_labelers"]

# params keys some label files hold that never change a score: a re-run that lacks them continues the file
_SCORE_NEUTRAL_KEYS = ("exclude_final",)


@dataclass
class LabelConfig(ScaleConfig):
    """Settings of the labeling recipe; each labeler has its own settings dataclass."""

    method: list[str] = field(default_factory=lambda: ["mcnig"], metadata={
        "help": lambda: f"labeling method(s), comma-separated, of: {', '.join(LABELERS)}; methods of one labeler share "
                        "its work per problem"})
    limit: int | None = field(default=None, metadata={"help": "label only the first N problems", "range": LIMIT})
    tau: float | None = field(default=None, metadata={"help": "fixed threshold; default: best balanced acc."})
    tau_from: str | None = field(default=None, metadata={"help": "take tau from another labeled file instead of "
                                                                 "choosing it here"})
    exclude_final: bool = field(default=True, metadata={"help": "threshold choice ignores the final step"})
    skip_too_long: bool = field(default=False, metadata={"help": "skip (and count) traces too long for the "
                                                                 "labeler instead of stopping with an error"})
    force_tau: bool = field(default=False, metadata={"help": "use the tau of tau_from even when that file was "
                                                             "labeled with another method or other settings"})
    input: str | None = field(default=None, metadata={"help": "pool file: prmkit pools, GSM8K, GSM8K candidates or "
                                                              "TRL (required)" + DEMO_INPUT})
    output: str | None = field(default=None, metadata={"help": "StepLabels JSONL (append-only; a re-run resumes); "
                                                               "with several methods use {method}", "required": True})
    format: str = field(default="auto", metadata={"help": "input format (default: detected from the first line)"})
    allow_duplicates: bool = field(default=False, metadata={"help": "keep the first of repeated problem ids instead "
                                                                    "of refusing the input"})


@dataclass
class LabelReport:
    """What one method's run did. Tokens and `labeler_seconds` (sum of its labeler's calls) are shared by the
    methods of one labeler; `seconds` is the run's wall time."""

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
    """"mcnig,ig,mcnig" or a list (of such) -> ["mcnig", "ig"]: names in LABELERS, duplicates dropped; raises
    ValueError."""
    names = list(dict.fromkeys(m for item in ([methods] if isinstance(methods, str) else methods)
                               for m in comma_list(item)))
    if unknown := [m for m in names if m not in LABELERS]:
        raise ValueError(f"unknown method {unknown}; choose from {sorted(LABELERS)}")
    if not names:
        raise ValueError("no labeling method given")
    return names


def output_paths(output: str | os.PathLike[str] | Mapping[str, str], methods: Sequence[str]) -> dict[str, str]:
    """{method: path} from "runs/{method}.jsonl", a single path (one method) or an explicit mapping."""
    if isinstance(output, Mapping):
        if set(output) != set(methods):
            raise ValueError(f"need one output per method {list(methods)}, got {sorted(output)}")
        return {m: str(output[m]) for m in methods}
    output = str(output)
    if len(methods) > 1 and "{method}" not in output:
        raise ValueError("with several methods, the output must contain {method}")
    return {m: output.replace("{method}", m) for m in methods}


def build_labelers(methods: Sequence[str], settings: Sequence[Any] = ()) -> list[Labeler]:
    """One labeler per registered class, serving its `methods`; a config missing from `settings` is defaulted."""
    by_class = {type(s): s for s in settings}
    return [cls(by_class.get(cls.config_class) or cls.config_class(), tuple(m for m in methods if LABELERS[m] is cls))
            for cls in dict.fromkeys(LABELERS[m] for m in methods)]


def label_pools(pools: Iterable[Pool], cfg: LabelConfig, output: str | os.PathLike[str] | Mapping[str, str],
                settings: Sequence[Any] = (), progress: bool = True,
                clock: str | os.PathLike[str] | None = None) -> dict[str, LabelReport]:
    """Label all traces of `pools` with `cfg.method` (append-only, resumable), then apply the threshold; `settings`
    holds the labelers' configs. Returns a report per method."""
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


def run_label(cfg: LabelConfig, *settings: Any, progress: bool = True,
              pools: Iterable[Pool] | None = None) -> dict[str, LabelReport]:
    """`prmkit label`: the pools of `cfg.input` (or `pools` in hand, from Python) labeled into `cfg.output`."""
    if pools is None and not cfg.input:
        raise ValueError("--input is required")
    pools = read_pools(cfg.input or "", cfg.format, cfg.allow_duplicates) if pools is None else pools
    return label_pools(pools, cfg, cfg.output or "", settings, progress=progress)


def _check_resume(path: str, params: dict[str, Any]) -> None:
    """Raise if `path` holds records labeled with other settings."""
    first = next((obj for _, obj in iter_json(path)), None) if Path(path).is_file() else None
    if first is not None and (diff := settings_diff(first.get("params", {}), params, skip=_SCORE_NEUTRAL_KEYS)):
        raise ValueError(f"{path} was labeled with other settings ({', '.join(diff)}); use a new output to relabel")


def _label_work(labelers: Resident[list[Labeler]], task: tuple[Pool, int, dict[str, set[str]]]) -> Labeled:
    pool, k, owed = task
    return _timed(functools.partial(labelers.get()[k].label, pool, owed))


def _timed(call: Callable[[], Labeled]) -> Labeled:
    start = time.perf_counter()
    done = call()
    done.cost.seconds = time.perf_counter() - start
    return done


def _streamed(tasks: Sequence[tuple[Pool, int, dict[str, set[str]]]],
              labelers: Sequence[Labeler]) -> Iterator[tuple[int, Labeled]]:
    """The labeler calls of `tasks`, in this process and in order, each pool's result timed."""
    streams = [iter(lab.label_stream([(pool, owed) for pool, j, owed in tasks if j == k]))
               for k, lab in enumerate(labelers)]
    for i, (_, k, _) in enumerate(tasks):
        yield i, _timed(functools.partial(next, streams[k]))


def run_labelers(pools: Sequence[Pool], labelers: Sequence[Labeler] | Resident[list[Labeler]],
                 outputs: Mapping[str, str], tau: float | None = None, exclude_final: bool = True,
                 progress: bool = True, skip_too_long: bool = False, executor: Executor | None = None,
                 clock: str | os.PathLike[str] | None = None) -> dict[str, LabelReport]:
    """Label what `outputs` still lack (through `executor`, default here), then threshold each file at `tau` or
    the best one. `clock`: a JSONL seconds ledger, one `{"methods", "traces", "seconds"}` line per labeler call and
    `{"methods", "reset": true}` when a method's output starts afresh (read by `read_clock`)."""
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
        writers = {m: held.enter_context(AppendOnlyWriter(outputs[m], key=lambda d: d["trace_id"])) for m in served}
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
                skips = ", ".join(f"{why} ({n})" for why, n in r.skipped.items()) or "none"
                r.warnings.append(warn(f"{r.output}: {r.method} labeled no trace (skipped: {skips}), so no tau is "
                                       "chosen and the file is empty"))
    return reports


def _clock_line(file: IO[str], labeler: Labeler, done: Labeled) -> None:
    traces = list(dict.fromkeys(r.trace_id for records in done.records.values() for r in records))
    file.write(json.dumps({"methods": list(labeler.methods), "traces": traces,
                           "seconds": round(done.cost.seconds, 3)}) + "\n")
    file.flush()


def _count(report: LabelReport, reason: str, n: int = 1) -> None:
    if n:
        report.skipped[reason] = report.skipped.get(reason, 0) + n


def _owed(pools: Sequence[Pool], labelers: Sequence[Labeler], writers: Mapping[str, AppendOnlyWriter],
          reports: dict[str, LabelReport], skip_too_long: bool = False
          ) -> list[tuple[Pool, dict[int, dict[str, set[str]]]]]:
    """Per pool, per labeler index, per method: the trace ids not yet written; skips and resumed problems counted."""
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
