"""Label every step of every trace of a pool file: the pipeline behind `prmkit label`.

Per problem, one forward pass scores all its traces (the scorer's block mask; I_0 shared), then the
method's formula turns the information table into step scores. Output is append-only StepLabels JSONL,
one problem at a time, so `kill -9` loses at most the problem in flight and a re-run resumes. When all
problems are done, tau is chosen by balanced accuracy (or taken from --tau) and the file is rewritten
atomically with the binary labels.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from prmkit.data.answers import answer_sets
from prmkit.data.jsonl import AppendOnlyWriter, iter_json, read_records, write_records
from prmkit.data.records import Pool, StepLabels
from prmkit.label.information_gain import information_gain
from prmkit.label.mcnig import mcnig
from prmkit.label.scorer import InformationScorer
from prmkit.label.threshold import Sweep, balanced_accuracy, cot_scores, plot_sweep, sweep_threshold
from prmkit.models.loading import DEFAULT_MODEL

__all__ = ["METHODS", "LabelConfig", "LabelReport", "apply_threshold", "label_pools"]


@dataclass
class LabelConfig:
    """Settings of `prmkit label`. Defaults are the MCNIG paper's (sec 3.2, appendix D: max, step 0)."""

    method: str = field(default="mcnig", metadata={"help": "labeling method: ig | mcnig"})
    model: str = field(default=DEFAULT_MODEL, metadata={"help": "embedded model name or local HF directory"})
    aggregation: str = field(default="max", metadata={"help": "MCNIG: max | mean over each answer set"})
    reference: str = field(default="step0", metadata={"help": "MCNIG: step0 | previous (appendix D)"})
    prompt_template: str | None = field(default=None, metadata={"help": "file with {question}; default built in"})
    cue_template: str | None = field(default=None, metadata={"help": "file with {answer}; default built in"})
    sep: str = field(default="\n", metadata={"help": "text appended after every step (own tokens)"})
    limit: int | None = field(default=None, metadata={"help": "label only the first N problems"})
    tau: float | None = field(default=None, metadata={"help": "fixed threshold; default: best balanced acc."})
    exclude_final: bool = field(default=True, metadata={"help": "threshold choice ignores the final step"})


@dataclass
class LabelReport:
    problems: int = 0
    traces: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    resumed: int = 0
    tokens_processed: int = 0
    paper_tokens: int = 0
    seconds: float = 0.0
    sweeps: dict[str, dict[str, float]] = field(default_factory=dict)


def _template(path: str | None, name: str) -> str:
    if path:
        return Path(path).read_text(encoding="utf-8")
    return resources.files("prmkit.templates").joinpath(name).read_text(encoding="utf-8")


# A method maps a pool to (answers to score, indices of C, indices of W) or a skip reason, and an
# information table (rows i = 0..N) to step scores.
Plan = tuple[list[str], list[int], list[int]]


def _plan_ig(pool: Pool, cfg: LabelConfig) -> Plan | str:
    if not pool.problem.answer.strip():
        return "no reference answer"
    return [pool.problem.answer.strip()], [0], []


def _plan_mcnig(pool: Pool, cfg: LabelConfig) -> Plan | str:
    answers, correct, incorrect = answer_sets(pool)
    return (answers, correct, incorrect) if incorrect else "no incorrect answer"


METHODS: dict[str, tuple[Callable[[Pool, LabelConfig], Plan | str], Callable[..., list[float]]]] = {
    "ig": (_plan_ig, lambda info, c, w, cfg: information_gain([row[0] for row in info])),
    "mcnig": (_plan_mcnig, lambda info, c, w, cfg: mcnig(info, c, w, cfg.aggregation, cfg.reference)),
}


def _paper_tokens(scorer: InformationScorer, question: str, steps: list[str], answers: list[str]) -> int:
    """|q| + sum|r_i| + (N+1) * S * T for one CoT (appendix A), with T the answers' own token lengths."""
    seg = scorer.segments(question, steps, [], with_step0=True)
    return seg.prefix_len + (len(steps) + 1) * sum(len(scorer.answer_ids(a)) for a in answers)


def _params(cfg: LabelConfig, method: str) -> dict[str, Any]:
    """What a StepLabels record stores of the run that made it (all that changes its scores)."""
    return {k: v for k, v in asdict(cfg).items() if k not in ("limit", "tau", "exclude_final")} | {"method": method}


def _check_resume(path: str, params: dict[str, Any]) -> None:
    """A re-run may only extend a file made with the same settings: mixed records would be meaningless."""
    if not Path(path).is_file():
        return
    first = next((obj for _, obj in iter_json(path)), None)
    if first is None:
        return
    old = first.get("params", {})
    if diff := sorted(k for k in params.keys() | old.keys() if k != "exclude_final" and old.get(k) != params.get(k)):
        changes = ", ".join(f"{k}: {old.get(k)!r} -> {params.get(k)!r}" for k in diff)
        raise ValueError(f"{path} was labeled with other settings ({changes}); use a new --output to relabel")


def _pending(pool: Pool, plans: dict[str, Plan | str], writers: dict[str, AppendOnlyWriter]) -> dict[str, Plan]:
    """The methods that still owe this pool records: not skipped, and some trace not yet written."""
    return {m: plan for m, plan in plans.items()
            if not isinstance(plan, str) and any(t.id not in writers[m].done for t in pool.traces)}


def label_pools(pools: Iterable[Pool], cfg: LabelConfig, output: str | os.PathLike[str] | dict[str, str],
                scorer: InformationScorer | None = None, progress: bool = True) -> dict[str, LabelReport]:
    """Label all traces of `pools` (append-only, resumable), then apply the threshold.

    `cfg.method` may list several methods ("ig,mcnig"): one forward pass per problem serves them all,
    and `output` is then {method: path}. Returns a report per method.
    """
    methods = [m.strip() for m in cfg.method.split(",") if m.strip()]
    if unknown := [m for m in methods if m not in METHODS]:
        raise ValueError(f"unknown method {unknown}; choose from {sorted(METHODS)}")
    outputs = output if isinstance(output, dict) else {methods[0]: str(output)}
    if len(methods) > 1 and set(outputs) != set(methods):
        raise ValueError("several methods need one output per method")
    pools = list(pools)[: cfg.limit] if cfg.limit else list(pools)
    if scorer is None:
        from prmkit.models.loading import load_model

        model, tokenizer = load_model(cfg.model)
        scorer = InformationScorer(model, tokenizer, _template(cfg.prompt_template, "label_prompt.txt"),
                                   _template(cfg.cue_template, "answer_cue.txt"), cfg.sep)
    reports = {m: LabelReport() for m in methods}
    start, tokens0 = time.perf_counter(), scorer.tokens_processed
    for m in methods:
        _check_resume(outputs[m], _params(cfg, m))
    writers = {m: AppendOnlyWriter(outputs[m], key=lambda d: d["trace_id"]) for m in methods}
    try:
        todo = []
        for pool in pools:
            plans = {m: METHODS[m][0](pool, cfg) for m in methods}
            for m, plan in plans.items():
                if isinstance(plan, str):
                    reports[m].skipped[plan] = reports[m].skipped.get(plan, 0) + 1
            if pending := _pending(pool, plans, writers):
                todo.append((pool, pending))
        for r in reports.values():
            r.resumed = len(pools) - len(todo)
        for pool, pending in _progress(todo, progress, cfg.method):
            _label_one(pool, cfg, pending, scorer, writers, reports)
    finally:
        for w in writers.values():
            w.close()
    for m, r in reports.items():
        r.seconds = time.perf_counter() - start
        r.tokens_processed = scorer.tokens_processed - tokens0
        r.sweeps = apply_threshold(outputs[m], cfg.tau, cfg.exclude_final)
    return reports


def _label_one(pool: Pool, cfg: LabelConfig, plans: dict[str, Plan], scorer: InformationScorer,
               writers: dict[str, AppendOnlyWriter], reports: dict[str, LabelReport]) -> None:
    """Score one problem's pending traces once and write each pending method's step scores."""
    answers = max((plan[0] for plan in plans.values()), key=len)
    if any(plan[0] != answers[: len(plan[0])] for plan in plans.values()):
        raise AssertionError("method plans must share their answer order")
    traces = [t for t in pool.traces if any(t.id not in writers[m].done for m in plans)]
    infos = scorer.information(pool.problem.question, [t.steps for t in traces], answers)
    for m, plan in plans.items():
        params = _params(cfg, m)
        for trace, info in zip(traces, infos, strict=True):
            scores = METHODS[m][1]([row[: len(plan[0])] for row in info], plan[1], plan[2], cfg)
            if writers[m].write(StepLabels(trace.id, m, scores, [], None, params, trace.correct, pool.problem.id)):
                reports[m].traces += 1
                reports[m].paper_tokens += _paper_tokens(scorer, pool.problem.question, trace.steps, plan[0])
        reports[m].problems += 1


def _progress(items: list[Any], enabled: bool, desc: str) -> Iterable[Any]:
    if not enabled:
        return items
    from tqdm import tqdm

    return tqdm(items, desc=f"label {desc}", unit="problem")


def apply_threshold(path: str | os.PathLike[str], tau: float | None = None, exclude_final: bool = True,
                    plot: bool = True) -> dict[str, dict[str, float]]:
    """Choose tau on `path` (unless given), write the binary labels into it atomically, plot the sweep.

    Returns {"final_excluded": {...}, "final_included": {...}} with the best tau and balanced accuracy of each
    on this file (an upper bound), and {"applied": {tau, balanced_accuracy}} at the tau written into it.
    """
    records = list(read_records(path, StepLabels.from_dict))
    judged = [r for r in records if r.correct is not None]
    scores, truth = [r.scores for r in judged], np.asarray([bool(r.correct) for r in judged], dtype=bool)
    sweeps: dict[str, Sweep] = {}
    for name, excl in (("final_excluded", True), ("final_included", False)):
        if judged:
            sweeps[name] = sweep_threshold(scores, truth, excl)
    key = "final_excluded" if exclude_final else "final_included"
    chosen = tau if tau is not None else (sweeps[key].tau if key in sweeps else 0.0)
    applied: dict[str, float] = {"tau": chosen}
    if judged:  # the figure at the tau actually used: held out when tau came from another file
        applied["balanced_accuracy"] = balanced_accuracy(cot_scores(scores, exclude_final) > chosen, truth)
    for r in records:
        r.threshold = chosen
        r.labels = [1 if s > chosen else 0 for s in r.scores]
    tmp = Path(f"{path}.tmp")
    write_records(tmp, records)
    os.replace(tmp, path)
    if plot and sweeps:
        plot_sweep(sweeps, str(Path(path).with_suffix(".sweep.png")), f"{records[0].method}: {path}")
    return {name: {"tau": sw.tau, "balanced_accuracy": sw.balanced_accuracy, "n": len(judged)}
            for name, sw in sweeps.items()} | {"applied": applied}
