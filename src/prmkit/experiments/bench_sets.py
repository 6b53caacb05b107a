"""`prmkit data bench`: bench problems for training or held-out use, disjoint by question text from other sets, with
their constructed traces and true labels when asked (docs/bench.md)."""

import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prmkit.data.bench import SLIPS, bench_problems, check_difficulty, constructed_pools
from prmkit.data.jsonl import DataError, iter_input, write_records
from prmkit.data.outputs import claim_outputs, claims
from prmkit.data.settings import SEED, Range, check_limits, comma_list
from prmkit.data.settings import field_help as _help

__all__ = ["LEVELS_HELP", "SIZE_HELP", "BenchSetConfig", "excluded_questions", "write_bench_set"]

_SEARCH = 20  # the stream is read up to this many times `problems` deep before giving up
# the helps of the settings of every config that draws bench problems
LEVELS_HELP = "levels (operations per problem), comma-separated, 1 to 8."
SIZE_HELP = "number size: small (to 20) | medium (to 100) | large (to 1,000)."


@dataclass
class BenchSetConfig:
    """`prmkit data bench`: bench problems for training or held-out use, disjoint from other sets by question."""

    output: str | None = field(default=None, metadata=_help("Problem JSONL to write (required).", role="output"))
    problems: int = field(default=100, metadata=_help("problems to write, spread evenly over the levels.",
                                                      range=Range(1, 100_000)))
    levels: str = field(default="1,2,3", metadata=_help(LEVELS_HELP))
    size: str = field(default="small", metadata=_help(SIZE_HELP))
    seed: int = field(default=1, metadata=_help("seed of the problem stream (the bench's own is 0).", range=SEED))
    exclude: list[str] = field(default_factory=list, metadata=_help(
        "JSONL files whose questions the set must not hold (Problem, Pool, GSM8K or sft_data.jsonl lines).",
        role="input"))
    pools: str | None = field(default=None, metadata=_help("also write the constructed traces of the problems here "
                                                           "(Pool JSONL; needs --labels).", role="output"))
    labels: str | None = field(default=None, metadata=_help("their true step labels (StepLabels JSONL, method "
                                                            "truth).", role="output"))
    slips: str = field(default=",".join(SLIPS), metadata=_help(
        "slip kinds of the constructed traces, one trace each per problem: " + " | ".join(SLIPS) + "."))

    def __post_init__(self) -> None:
        check_limits(self)
        check_difficulty(self.levels, self.size)
        if missing := [p for p in self.exclude if not Path(p).is_file()]:
            raise FileNotFoundError(f"--exclude: no such file {missing[0]}")
        if bool(self.pools) != bool(self.labels):
            raise ValueError("give --pools and --labels together (the traces and their true labels)")
        if unknown := [s for s in self.slip_list() if s not in SLIPS]:
            raise ValueError(f"unknown slip kind(s) {unknown}; choose from {', '.join(SLIPS)}")

    def level_list(self) -> list[int]:
        return check_difficulty(self.levels, self.size)

    def slip_list(self) -> tuple[str, ...]:
        return tuple(comma_list(self.slips))


def excluded_questions(paths: list[str | os.PathLike[str]]) -> set[str]:
    """The questions of JSONL files whose lines hold `question` or `problem.question`; an empty file is a DataError."""
    out: set[str] = set()
    for path in paths:
        lineno = 0
        for lineno, obj in iter_input(path):
            question = obj.get("question")
            if question is None and isinstance(obj.get("problem"), dict):
                question = obj["problem"].get("question")
            if not isinstance(question, str):
                raise DataError(f"{path}:{lineno}: no question (keys: {', '.join(sorted(obj))})")
            out.add(question)
        if not lineno:
            raise DataError(f"--exclude {path}: the file is empty, so it would exclude nothing; give the file of "
                            "the set whose questions must be left out, or drop it")
    return out


def write_bench_set(cfg: BenchSetConfig) -> dict[str, Any]:
    """Write the first `cfg.problems` of the stream (levels balanced) whose question is neither excluded nor repeated,
    and their traces and true labels when asked. Returns {output, problems, by_level, skipped, ...}."""
    if not cfg.output:
        raise ValueError("set --output (the Problem JSONL to write)")
    with claim_outputs(**claims(cfg)):  # no output is an input
        return _write(cfg)


def _write(cfg: BenchSetConfig) -> dict[str, Any]:
    levels = cfg.level_list()
    banned = excluded_questions(list(cfg.exclude))
    want = {lv: cfg.problems // len(levels) + (k < cfg.problems % len(levels)) for k, lv in enumerate(levels)}
    depth = cfg.problems
    while True:  # the stream is prefix-stable: a deeper read starts with the shallower one
        stream = bench_problems(depth, cfg.seed, tuple(levels), cfg.size)
        kept: list[Any] = []
        seen: set[str] = set()
        skipped: Counter[str] = Counter()
        have: Counter[int] = Counter()
        for p in stream:
            lv = p.meta["level"]
            if have[lv] >= want[lv]:
                continue
            if p.question in banned:
                skipped["excluded"] += 1
            elif p.question in seen:
                skipped["repeated"] += 1
            else:
                seen.add(p.question)
                kept.append(p)
                have[lv] += 1
        if len(kept) == cfg.problems:
            break
        if depth >= _SEARCH * cfg.problems:
            short = {lv: want[lv] - have[lv] for lv in levels if have[lv] < want[lv]}
            raise ValueError(f"only {len(kept)} of {cfg.problems} distinct problems not excluded in the first "
                             f"{depth} of the stream (short by level: {short}); lower --problems, use a larger "
                             "--size or fewer exclusions")
        depth = min(2 * depth, _SEARCH * cfg.problems)
    write_records(cfg.output, kept)
    traces = {}
    if cfg.pools and cfg.labels:
        pools, truth = constructed_pools(kept, cfg.slip_list(), cfg.seed)
        write_records(cfg.pools, pools)
        write_records(cfg.labels, truth)
        traces = {"pools": cfg.pools, "labels": cfg.labels, "traces": len(truth),
                  "answer_right": sum(bool(t.correct) for t in truth)}
    return traces | {"output": cfg.output, "problems": len(kept), "by_level": {str(lv): have[lv] for lv in levels},
                     "skipped": dict(skipped)}
