"""Beam search over reasoning steps guided by a step scorer (PUM sec 4.3 and appendix D.3).

For each problem: sample N first steps; score every prefix with the scorer (a PRM: the `aggregation` of its step
scores, `min` in PUM); set the finished ones aside and keep the b best unfinished ones; expand each kept prefix
with N/b one-step continuations; repeat until no prefix is unfinished or `max_steps` stages have run (the prefixes
left then end there). The answer is the best-scoring finished trace that has an answer (`choose`); when a
continuation finishes its trace: `is_finished`.

Batching: the live prefixes of ALL problems of a batch are expanded by ONE `rollout_prefixes` call per stage (one
`generate_rendered` call: shared prefill per prefix, N/b rows each), and all new prefixes are scored in one
`score_items` pass; search-and-learn instead searches one problem at a time (its issue #26). A problem with fewer
than b unfinished prefixes expands only those (its stage uses fewer than N samples).

Prefix ids are `<problem_id>#<k0>.<k1>...` (the sample index at each stage), so continuation k of a prefix is
seeded from (seed, prefix id, k) and a problem's search does not depend on the other problems of its batch.

Worked example, N = 4, b = 2, scores by min: stage 1 gives prefixes A (0.9), B (0.4), C (0.7), D (answer, 0.5):
D is finished, A and C are kept; stage 2 expands A and C twice each, and so on.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from prmkit.data.records import Problem
from prmkit.domains import STEP
from prmkit.generate.backends import PromptBackend, SamplingConfig
from prmkit.generate.rollout import PrefixRequest, rollout_prefixes
from prmkit.generate.rollout_records import Continuation
from prmkit.models.scorer import StepScorer
from prmkit.search.records import SearchResult, SearchStats
from prmkit.search.select import keep_best, prefix_scores, search_result

__all__ = ["beam_search", "is_finished"]


@dataclass
class _Candidate:
    prefix_id: str
    steps: tuple[str, ...]
    finished: bool
    answer: str | None = None
    correct: bool = False
    score: float = 0.0


@dataclass
class _Search:
    """One problem's search state: its live prefixes, its finished traces and what it has cost."""

    problem: Problem
    live: list[_Candidate]
    done: list[_Candidate] = field(default_factory=list)
    samples: int = 0
    stages: int = 0
    tokens: int = 0


def is_finished(c: Continuation, max_new_tokens: int) -> bool:
    """A one-step continuation ends its trace: it has an answer, it is empty, or it ended before the stage's token
    limit other than at `[STEP]` (end of sequence, the next few-shot item). One cut by the token limit goes on (PUM
    D.3: the per-stage limit ends a stage, not the trajectory).

    >>> is_finished(Continuation(" 3 * 4 = 12. ", ["3 * 4 = 12."], None, False, "no answer", 9, "[STEP]"), 48)
    False
    >>> is_finished(Continuation(" 3 * 4 = 12.", ["3 * 4 = 12."], None, False, "no answer", 8, None), 48)
    True
    """
    if c.answer is not None or not c.steps:
        return True
    return c.stopped_at != STEP and c.tokens_generated < max_new_tokens


def _stage(searches: list[_Search], backend: PromptBackend, sampling: SamplingConfig, n: int, last: bool,
           stats: SearchStats) -> list[tuple[_Search, _Candidate]]:
    """Expand every live prefix of every search n times in one generation call; return the new candidates."""
    requests = [PrefixRequest(c.prefix_id, s.problem, c.steps) for s in searches for c in s.live]
    rolled = rollout_prefixes(requests, backend, replace(sampling, n=n), prefixes_per_batch=len(requests),
                              one_step=True)
    stats.add_call(len(requests), rolled)
    n_tokens = sampling.max_new_tokens
    parents = {c.prefix_id: (s, c) for s in searches for c in s.live}
    out = []
    for record in rolled.records:
        search, parent = parents[record.prefix_id]
        search.samples += len(record.continuations)
        search.tokens += record.tokens_generated
        for k, c in enumerate(record.continuations):
            sep = "." if parent.steps else ""
            out.append((search, _Candidate(f"{parent.prefix_id}{sep}{k}", parent.steps + tuple(c.steps),
                                           last or is_finished(c, n_tokens), c.answer, c.correct)))
    for s in searches:
        s.stages += 1
    return out


def beam_search(problems: Sequence[Problem], backend: PromptBackend, scorer: StepScorer, sampling: SamplingConfig,
                width: int, max_steps: int, aggregation: str = "min", stats: SearchStats | None = None,
                on_result: Callable[[SearchResult], None] | None = None) -> list[SearchResult]:
    """Beam search for every problem together (see the module doc); `sampling.n` is N. Each problem's result is
    passed to `on_result` as soon as its search ends."""
    if width < 1 or sampling.n % width:
        raise ValueError(f"N = {sampling.n} must be a positive multiple of the beam width b = {width}")
    stats = stats if stats is not None else SearchStats()
    searches = [_Search(p, [_Candidate(f"{p.id}#", (), False)]) for p in problems]
    results: list[SearchResult] = []
    for depth in range(max_steps):
        active = [s for s in searches if s.live]
        if not active:
            break
        new = _stage(active, backend, sampling, sampling.n if depth == 0 else sampling.n // width,
                     depth == max_steps - 1, stats)
        start = time.perf_counter()
        scores = prefix_scores(scorer, [(s.problem.question, list(c.steps)) for s, c in new], aggregation)
        stats.scoring_seconds += time.perf_counter() - start
        for (_, c), score in zip(new, scores, strict=True):
            c.score = score
        for s in active:
            mine = [c for owner, c in new if owner is s]
            s.done += [c for c in mine if c.finished]
            open_ = [c for c in mine if not c.finished]
            s.live = [open_[i] for i in keep_best([c.score for c in open_], width)]
            if not s.live:
                results.append(search_result(s.problem.id, "beam", [(c.steps, c.answer, c.correct, c.score)
                                                                    for c in s.done], s.samples, s.stages, s.tokens))
                stats.problems += 1
                if on_result:
                    on_result(results[-1])
    return results

