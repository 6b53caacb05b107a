"""The `generate` and `verify` recipes: load problems, sample, validate, filter, print counts and throughput."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

from prmkit.data.jsonl import read_records, write_records
from prmkit.data.records import Pool
from prmkit.generate.backends import BackendOptions, SamplingConfig, make_backend
from prmkit.generate.extract import extract_answer
from prmkit.generate.filtering import filter_pools
from prmkit.generate.pipeline import GenerationStats, answer_sets, generate_pools
from prmkit.generate.prompts import STEP
from prmkit.generate.sources import load_problems
from prmkit.verify import verify_answers

__all__ = ["reverify_file", "run_generation", "solve_rate"]


def solve_rate(pools: list[Pool]) -> tuple[float, float]:
    """(fraction of traces correct, fraction of problems with at least one correct trace)."""
    traces = [t for p in pools for t in p.traces]
    if not traces:
        return 0.0, 0.0
    return (
        sum(bool(t.correct) for t in traces) / len(traces),
        sum(any(t.correct for t in p.traces) for p in pools) / len(pools),
    )


def run_generation(
    data: str,
    output: str | Path,
    raw: str | Path,
    cfg: SamplingConfig,
    backend: str = "transformers",
    model: str = "smollm2-135m",
    options: BackendOptions | None = None,
    domain: str | None = None,
    limit: int | None = None,
    apply_filter: bool = True,
    max_traces: int = 8,
    progress: bool = True,
) -> GenerationStats:
    problems = load_problems(data, limit, domain)
    print(
        f"{len(problems)} problems from {data}; K={cfg.n}, T={cfg.temperature}, top-p={cfg.top_p}, "
        f"max_new_tokens={cfg.max_new_tokens}, backend={backend}, model={model}"
    )
    sampler = make_backend(backend, model, options)
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(problems), unit="problem", desc="generate")
    wall = time.perf_counter()
    try:
        per_batch = max(1, (options or BackendOptions()).batch_size // cfg.n)
        stats = generate_pools(
            problems, sampler, cfg, raw, per_batch, f"{backend}:{model}", progress=bar.update if bar else None
        )
    finally:
        if bar:
            bar.close()
    print(
        f"generated {stats.problems} problems ({stats.skipped} already in {raw}): {stats.tokens} tokens in "
        f"{stats.seconds:.1f}s sampling = {stats.tokens_per_second:.1f} tok/s "
        f"({time.perf_counter() - wall:.1f}s wall incl. validation)"
    )
    wanted = {p.id for p in problems}
    pools = [p for p in read_records(raw, Pool.from_dict) if p.problem.id in wanted]
    per_trace, per_problem = solve_rate(pools)
    print(
        f"solve rate: {per_trace:.1%} of traces correct, {per_problem:.1%} of problems solved at least once"
    )
    if apply_filter:
        pools, report = filter_pools(pools, max_traces, cfg.seed)
        print("\n".join(report.lines()))
    write_records(output, pools)
    print(f"wrote {len(pools)} pools to {output}")
    return stats


def _stored_answers(pool: Pool) -> list[str]:
    """The answers of the stored sets C_q, W_q that none of the pool's traces holds."""
    own = {t.answer for t in pool.traces}
    stored = pool.problem.meta.get("correct_answers", []) + pool.problem.meta.get("incorrect_answers", [])
    return [a for a in dict.fromkeys(stored) if a not in own]


def reverify_file(path: str | Path, output: str | Path | None = None, show: int = 10, reextract: bool = False) -> int:
    """Re-validate every trace of a Pool file; returns the number of changed verdicts.

    With `reextract`, each answer is first extracted again from the trace's steps (rejoined with `[STEP]`), e.g.
    after an extractor fix; traces that now have no answer get `answer=None` and fail."""
    pools = list(read_records(path, Pool.from_dict))
    if reextract:
        moved = 0
        for pool in pools:
            for k, t in enumerate(pool.traces):
                answer = extract_answer(pool.problem.domain, f" {STEP} ".join(t.steps))
                moved += answer != t.answer
                pool.traces[k] = replace(t, answer=answer)
        print(f"re-extracted answers: {moved} changed")
    pairs = [(p.problem, t.answer) for p in pools for t in p.traces]
    # The full answer sets C_q, W_q (all K samples, stored before filtering) are re-validated too, so that a
    # filtered file keeps the answers of traces it no longer holds.
    kept = [_stored_answers(p) for p in pools]
    stored = [(p.problem, a) for p, answers in zip(pools, kept, strict=True) for a in answers]
    verdicts = iter(verify_answers(pairs + stored))
    changed, traces_of = [], []
    for pool in pools:
        traces = []
        for t in pool.traces:
            v = next(verdicts)
            if v.ok != t.correct:
                changed.append(f"  {t.id}: stored {t.correct} -> {v.ok} ({v.reason}; answer {t.answer!r})")
            traces.append(replace(t, correct=v.ok))
        traces_of.append(traces)
    out = []
    for pool, traces, answers in zip(pools, traces_of, kept, strict=True):
        correct, wrong = answer_sets(traces)
        for a in answers:
            (correct if next(verdicts).ok else wrong).append(a)
        meta = {**pool.problem.meta, "correct_answers": list(dict.fromkeys(correct)),
                "incorrect_answers": list(dict.fromkeys(wrong))}
        out.append(Pool(replace(pool.problem, meta=meta), traces))
    print(
        f"{len(pairs)} traces in {len(pools)} pools: {len(pairs) - len(changed)} verdicts unchanged, "
        f"{len(changed)} changed"
    )
    print("\n".join(changed[:show]))
    per_trace, per_problem = solve_rate(out)
    print(
        f"solve rate: {per_trace:.1%} of traces correct, {per_problem:.1%} of problems solved at least once"
    )
    if output:
        write_records(output, out)
        print(f"wrote {len(out)} pools to {output}")
    return len(changed)
