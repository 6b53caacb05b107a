"""Rollouts: K validated continuations after a step prefix of a trace (the primitive of Math-Shepherd, OmegaPRM, PUM
prefix gain, beam search and GRPO; docs/generate_verify.md). A continuation's answer is read from it alone, and
continuation k is seeded from (seed, prefix id, k), never from its batch position."""

import time
import zlib
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path

from prmkit.data.jsonl import AppendOnlyWriter
from prmkit.data.records import Pool, Problem
from prmkit.domains import STEP, STOP, domain, parse_completion, verify_answers
from prmkit.generate.backends import Completion, PromptBackend, SamplingConfig
from prmkit.generate.distributed import Executor, LocalExecutor, Resident
from prmkit.generate.prompts import build_prompt
from prmkit.generate.rollout_records import Continuation, Rollout

__all__ = ["PrefixRequest", "RolloutStats", "check_requests", "partial_answer", "prefix_requests", "prefix_seed",
           "rollout_prefixes", "sample_checked"]


@dataclass(frozen=True)
class PrefixRequest:
    """Roll out `problem` after its first `len(steps)` steps; `prefix_id` names it (`<trace_id>@<n>`)."""

    prefix_id: str
    problem: Problem
    steps: tuple[str, ...] = ()


@dataclass
class RolloutStats:
    """Counts of one `rollout_prefixes` call; `records` are the prefixes rolled out in it."""

    prefixes: int = 0
    skipped: int = 0  # already in the output file
    rollouts: int = 0
    tokens_generated: int = 0
    tokens_read: int = 0  # prompt + prefix tokens, once per prefix
    solved: int = 0
    seconds: float = 0.0  # sampling time only (not validation)
    records: list[Rollout] = field(default_factory=list)


def partial_answer(rendered_prompt: str, steps: Sequence[str]) -> str:
    """The prompt, then the steps joined by " [STEP] " and a final " [STEP]" (a space first unless the prompt ends in
    whitespace): "Answer:", ["a = 1.", "b = 2."] -> "Answer: a = 1. [STEP] b = 2. [STEP]"."""
    if not steps:
        return rendered_prompt
    sep = "" if rendered_prompt[-1:].isspace() else " "
    return f"{rendered_prompt}{sep}{f' {STEP} '.join(steps)} {STEP}"


def prefix_seed(seed: int, prefix_id: str) -> int:
    """The seed of a prefix: from the run's seed and the prefix id only."""
    return zlib.crc32(f"{seed}:{prefix_id}".encode())


def prefix_requests(pools: Sequence[Pool], positions: Sequence[int] = ()) -> list[PrefixRequest]:
    """Prefixes of every trace: n = 0 (the baseline, once per problem, id `<problem_id>@0`) and n = 1..N-1
    (id `<trace_id>@<n>`); with `positions`, only those n (n = N, a whole trace, only when asked for)."""
    wanted = set(positions)
    out: list[PrefixRequest] = []
    for pool in pools:
        if not wanted or 0 in wanted:
            out.append(PrefixRequest(f"{pool.problem.id}@0", pool.problem))
        for trace in pool.traces:
            lengths = sorted(n for n in wanted if 0 < n <= len(trace.steps)) if wanted else range(1, len(trace.steps))
            out += [PrefixRequest(f"{trace.id}@{n}", pool.problem, tuple(trace.steps[:n])) for n in lengths]
    return out


def check_requests(requests: Sequence[PrefixRequest], backend: PromptBackend,
                   template: str | None = None) -> list[tuple[str, int]]:
    """(rendered text, its token count or -1) of every request; bad input raises, naming the prefix (and a backend
    that cannot roll out)."""
    if not hasattr(backend, "generate_rendered"):
        raise ValueError(f"backend '{backend.name}' cannot roll out prefixes (no generate_rendered)")
    context = backend.context_length()
    errors, seen, out = [], set(), []
    for r in requests:
        if r.prefix_id in seen:
            errors.append(f"{r.prefix_id}: duplicate prefix id")
        seen.add(r.prefix_id)
        try:
            domain(r.problem.domain)
        except ValueError as e:
            errors.append(f"{r.prefix_id}: problem {r.problem.id} has domain '{r.problem.domain}' ({e})")
            continue
        if bad := [k for k, s in enumerate(r.steps) if not s.strip() or STEP in s]:
            errors.append(f"{r.prefix_id}: step {bad[0]} is empty or contains {STEP}")
            continue
        text = partial_answer(backend.render(build_prompt(r.problem, template)), r.steps)
        tokens = backend.count_tokens(text)
        if context is not None and tokens is not None and tokens >= context:
            errors.append(f"{r.prefix_id}: prompt + prefix is {tokens} tokens, the model's context {context}")
        out.append((text, -1 if tokens is None else tokens))
    if errors:
        more = f" (and {len(errors) - 5} more)" if len(errors) > 5 else ""
        raise ValueError("bad rollout input: " + "; ".join(errors[:5]) + more)
    return out


def _records(batch: Sequence[PrefixRequest], outs: list[list[Completion]], tokens: Sequence[int],
             seeds: Sequence[int]) -> list[Rollout]:
    parsed = [[parse_completion(r.problem.domain, c.text) for c in cs] for r, cs in zip(batch, outs, strict=True)]
    pairs = [(r.problem, answer) for r, ps in zip(batch, parsed, strict=True) for _, answer in ps]
    verdicts = iter(verify_answers(pairs))
    records = []
    for r, cs, ps, n_read, seed in zip(batch, outs, parsed, tokens, seeds, strict=True):
        conts = [Continuation(c.text, steps, answer, (v := next(verdicts)).ok, v.reason, c.tokens, c.stopped_at)
                 for c, (steps, answer) in zip(cs, ps, strict=True)]
        records.append(Rollout(r.prefix_id, r.problem.id, len(r.steps), seed, None if n_read < 0 else n_read, conts))
    return records


def _rollout_batch(backend: Resident[PromptBackend], cfg: SamplingConfig, one_step: bool,
                   batch: Sequence[tuple[PrefixRequest, str, int]]) -> tuple[list[Rollout], float]:
    """K validated continuations of each (request, rendered text, tokens read) as records, and the sampling seconds."""
    requests = [r for r, _, _ in batch]
    stop = cfg.stop or tuple(dict.fromkeys(s for r in requests for s in STOP.get(r.problem.domain, ())))
    stop = (*stop, STEP) if one_step and STEP not in stop else stop
    seeds = [prefix_seed(cfg.seed, r.prefix_id) for r in requests]
    start = time.perf_counter()
    outs = backend.get().generate_rendered([text for _, text, _ in batch], replace(cfg, stop=stop), seeds)
    seconds = time.perf_counter() - start
    return _records(requests, outs, [n for _, _, n in batch], seeds), seconds


def sample_checked(batch: Sequence[tuple[PrefixRequest, str, int]], backend: PromptBackend,
                   cfg: SamplingConfig) -> list[Rollout]:
    """The records of one `generate_rendered` call over requests already checked: (request, rendered text, tokens
    read) as `check_requests` gives them. Prefixes of several problems, even with one id twice, may share it."""
    return _rollout_batch(Resident(lambda: backend, backend), cfg, False, batch)[0]


def rollout_prefixes(requests: Sequence[PrefixRequest], backend: PromptBackend | Resident[PromptBackend],
                     cfg: SamplingConfig, output: str | Path | None = None, prefixes_per_batch: int = 4,
                     progress: Callable[[int], None] | None = None, executor: Executor | None = None,
                     one_step: bool = False) -> RolloutStats:
    """cfg.n continuations after each prefix not yet in `output` (all of them without one), every request checked
    first; `cfg.stop` defaults to the domain's stops. `one_step`: also stop at the next `[STEP]` (`stopped_at ==
    "[STEP]"`: the trace goes on; any other end finished it)."""
    resident = backend if isinstance(backend, Resident) else Resident(lambda: backend, backend)
    backend = resident.get()
    rendered = dict(zip((r.prefix_id for r in requests), check_requests(requests, backend, cfg.template), strict=True))
    stats = RolloutStats()
    with AppendOnlyWriter(output, key=lambda d: d["prefix_id"]) if output else nullcontext() as writer:
        todo = [(r, *rendered[r.prefix_id]) for r in requests if not writer or r.prefix_id not in writer.done]
        stats.skipped = len(requests) - len(todo)
        if progress and stats.skipped:
            progress(stats.skipped)
        size = max(1, prefixes_per_batch)
        batches = [todo[i : i + size] for i in range(0, len(todo), size)]
        work = partial(_rollout_batch, resident, cfg, one_step)
        for _, (records, seconds) in (executor or LocalExecutor()).map(work, batches):
            stats.seconds += seconds
            for record in records:
                if writer:
                    writer.write(record)
                stats.records.append(record)
                stats.prefixes += 1
                stats.rollouts += len(record.continuations)
                stats.tokens_generated += record.tokens_generated
                stats.tokens_read += record.tokens_read or 0
                stats.solved += record.solved
            if progress:
                progress(len(records))
    return stats
