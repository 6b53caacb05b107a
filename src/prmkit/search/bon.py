"""Best-of-N, beam search's baseline at about the same budget: N whole traces per problem, the best-scoring one with
an answer chosen, the majority vote beside it (PUM appendix D)."""

import time
from collections.abc import Callable, Sequence
from dataclasses import replace

from prmkit.data.records import Problem
from prmkit.generate.backends import PromptBackend, SamplingConfig
from prmkit.generate.rollout import PrefixRequest, rollout_prefixes
from prmkit.models.scorer import StepScorer
from prmkit.search.records import SearchResult, SearchStats
from prmkit.search.select import prefix_scores, search_result

__all__ = ["best_of_n"]


def best_of_n(problems: Sequence[Problem], backend: PromptBackend, scorer: StepScorer, sampling: SamplingConfig,
              max_steps: int, aggregation: str = "min", stats: SearchStats | None = None,
              on_result: Callable[[SearchResult], None] | None = None) -> list[SearchResult]:
    """Best-of-N for every problem; `sampling.n` is N, `sampling.max_new_tokens` the budget of one step (a trace gets
    `max_steps` times it)."""
    stats = stats if stats is not None else SearchStats()
    requests = [PrefixRequest(f"{p.id}#", p) for p in problems]
    trace_cfg = replace(sampling, max_new_tokens=sampling.max_new_tokens * max_steps)
    rolled = rollout_prefixes(requests, backend, trace_cfg, prefixes_per_batch=len(requests))
    stats.add_call(len(requests), rolled)
    question = {p.id: p.question for p in problems}
    start = time.perf_counter()
    items = [(question[r.problem_id], c.steps) for r in rolled.records for c in r.continuations]
    scores = iter(prefix_scores(scorer, items, aggregation))
    stats.scoring_seconds += time.perf_counter() - start
    results = []
    for r in rolled.records:
        candidates = [(c.steps, c.answer, c.correct, next(scores)) for c in r.continuations]
        results.append(search_result(r.problem_id, "bon", candidates, len(candidates), 1, r.tokens_generated))
        stats.problems += 1
        if on_result:
            on_result(results[-1])
    return results
