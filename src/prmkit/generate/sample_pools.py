"""Sample K step-delimited CoTs per problem, validate their answers and append one Pool per problem (MCNIG paper
sec 3.1; the answer sets C_q, W_q kept in full in `problem.meta`)."""

import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

from prmkit.data.answers import distinct_answers
from prmkit.data.jsonl import AppendOnlyWriter
from prmkit.data.records import Pool, Problem, Trace
from prmkit.domains import STOP, parse_completion, verify_answers
from prmkit.generate.backends import Backend, SamplingConfig
from prmkit.generate.distributed import Executor, LocalExecutor, Resident
from prmkit.generate.prompts import build_prompt

__all__ = ["GenerationStats", "generate_pools", "make_pool"]


@dataclass
class GenerationStats:
    problems: int = 0  # generated in this run
    skipped: int = 0  # already in the output file
    samples: int = 0
    tokens: int = 0
    seconds: float = 0.0  # sampling time only (not validation)
    correct: int = 0

    @property
    def tokens_per_second(self) -> float:
        return self.tokens / self.seconds if self.seconds else 0.0


def make_pool(problem: Problem, texts: Sequence[str], source: str) -> Pool:
    """Traces from K completions: steps split on [STEP], answers extracted and validated in parallel."""
    parsed = [parse_completion(problem.domain, text) for text in texts]
    verdicts = verify_answers([(problem, answer) for _, answer in parsed])
    traces = [Trace(f"{problem.id}/s{k}", problem.id, steps, answer, v.ok, source)
              for k, ((steps, answer), v) in enumerate(zip(parsed, verdicts, strict=True))]
    correct, wrong = distinct_answers(traces)
    meta = {**problem.meta, "correct_answers": correct, "incorrect_answers": wrong}
    return Pool(replace(problem, meta=meta), traces)


def _seed(base: int, problems: Sequence[Problem]) -> int:
    """A seed per batch that depends on its problems: a resumed run that batches the remaining problems as the
    first run did samples what it would have (a batch split differently by the crash gets other samples)."""
    return (base + zlib.crc32("\n".join(p.id for p in problems).encode())) % (2**31)


def _sample_batch(backend: Resident[Backend], cfg: SamplingConfig, source: str,
                  batch: Sequence[Problem]) -> tuple[list[Pool], list[int], float]:
    """Sample, parse and validate one batch: its pools, the tokens generated for each, the sampling seconds."""
    built = backend.get()
    stop = tuple(dict.fromkeys(s for p in batch for s in STOP.get(p.domain, ())))
    start = time.perf_counter()
    outs = built.generate([build_prompt(p, cfg.template) for p in batch],
                          replace(cfg, seed=_seed(cfg.seed, batch), stop=cfg.stop or stop))
    seconds = time.perf_counter() - start
    pools = [make_pool(p, [c.text for c in cs], source or built.name) for p, cs in zip(batch, outs, strict=True)]
    return pools, [sum(c.tokens for c in cs) for cs in outs], seconds


def generate_pools(problems: Sequence[Problem], backend: Backend | Resident[Backend], cfg: SamplingConfig,
                   output: str | Path, problems_per_batch: int = 2, source: str = "",
                   progress: Callable[[int], None] | None = None, executor: Executor | None = None) -> GenerationStats:
    """Sample cfg.n traces per problem not yet in `output` and append their pools to it. The batches run through
    `executor` (default: here); a `Resident` backend is built where they run (once per Ray actor)."""
    stats = GenerationStats()
    resident = backend if isinstance(backend, Resident) else Resident(lambda: backend, backend)
    work = partial(_sample_batch, resident, cfg, source)
    with AppendOnlyWriter(output, key=lambda d: d["problem"]["id"]) as writer:
        todo = [p for p in problems if p.id not in writer.done]
        stats.skipped = len(problems) - len(todo)
        if progress and stats.skipped:
            progress(stats.skipped)  # a resumed run's bar starts where the last one stopped
        batches = [todo[i : i + problems_per_batch] for i in range(0, len(todo), problems_per_batch)]
        for _, (pools, tokens, seconds) in (executor or LocalExecutor()).map(work, batches):
            stats.seconds += seconds
            for pool, n_tokens in zip(pools, tokens, strict=True):
                writer.write(pool)
                stats.problems += 1
                stats.samples += len(pool.traces)
                stats.tokens += n_tokens
                stats.correct += sum(bool(t.correct) for t in pool.traces)
            if progress:
                progress(len(pools))
    return stats
