"""Beam search over reasoning steps guided by a step scorer (PUM sec 4.3, appendix D.3; docs/search.md). Prefix ids
are `<problem_id>#<k0>.<k1>...`, so a problem's samples do not depend on the other problems of its batch."""

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
    """A one-step continuation ends its trace: it has an answer, is empty, or stopped before the token limit other
    than at `[STEP]`. One cut by the token limit goes on (PUM D.3: the limit ends a stage, not the trajectory)."""
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
    parents = {c.prefix_id: (s, c) for s in searches for c in s.live}
    out = []
    for record in rolled.records:
        search, parent = parents[record.prefix_id]
        search.samples += len(record.continuations)
        search.tokens += record.tokens_generated
        for k, c in enumerate(record.continuations):
            sep = "." if parent.steps else ""
            out.append((search, _Candidate(f"{parent.prefix_id}{sep}{k}", parent.steps + tuple(c.steps),
                                           last or is_finished(c, sampling.max_new_tokens), c.answer, c.correct)))
    for s in searches:
        s.stages += 1
    return out


def beam_search(problems: Sequence[Problem], backend: PromptBackend, scorer: StepScorer, sampling: SamplingConfig,
                width: int, max_steps: int, aggregation: str = "min", stats: SearchStats | None = None,
                on_result: Callable[[SearchResult], None] | None = None) -> list[SearchResult]:
    """Beam search for every problem together (PUM D.3): the `width` best unfinished prefixes kept, each expanded
    N/b times; `sampling.n` is N. Each result goes to `on_result` as soon as its search ends."""
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

