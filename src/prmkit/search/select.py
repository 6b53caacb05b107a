"""Choosing among candidates: keep the b best prefixes, pick the best trace, vote on answers (PUM appendix D)."""

from collections import Counter
from collections.abc import Sequence

from prmkit.data.answers import answer_key
from prmkit.models.aggregate import aggregate
from prmkit.models.scorer import StepScorer, score_items
from prmkit.search.records import SearchResult

__all__ = ["choose", "keep_best", "majority_vote", "prefix_scores", "search_result"]


def keep_best(scores: Sequence[float], b: int) -> list[int]:
    """Indices of the `b` highest scores, best first, ties to the earlier (PUM D.3: the top-b prefixes are kept)."""
    return sorted(range(len(scores)), key=lambda i: (-scores[i], i))[:b]


def choose(scores: Sequence[float], answers: Sequence[str | None]) -> int:
    """Index of the best-scoring candidate with an answer (of all when none has one: one without an answer cannot
    be right); ties: the earlier."""
    answered = [i for i, a in enumerate(answers) if a is not None] or list(range(len(scores)))
    return answered[keep_best([scores[i] for i in answered], 1)[0]]


def majority_vote(answers: Sequence[str | None]) -> int | None:
    """Index of the first candidate whose answer (by `answer_key`) is the most frequent; None when none has one
    (PUM D: ties broken by the earliest occurrence)."""
    keys = [None if a is None else answer_key(a) for a in answers]
    counts = Counter(k for k in keys if k is not None)  # most_common: equal counts in first-occurrence order
    return keys.index(counts.most_common(1)[0][0]) if counts else None


def prefix_scores(scorer: StepScorer, items: list[tuple[str, list[str]]], aggregation: str) -> list[float]:
    """One aggregated score per (question, steps) item, batched across questions (`score_items`); no steps -> 0."""
    out = [0.0] * len(items)
    kept = [i for i, (_, steps) in enumerate(items) if steps]
    for j, step_scores in score_items(scorer, [items[i] for i in kept]):
        out[kept[j]] = aggregate(step_scores, aggregation)
    return out


def search_result(problem_id: str, method: str, candidates: Sequence[tuple[Sequence[str], str | None, bool, float]],
                  samples: int, stages: int, tokens: int) -> SearchResult:
    """A problem's record from its finished candidates (steps, answer, correct, score): the one `choose` picks, and
    the `majority_vote` beside it."""
    answers = [a for _, a, _, _ in candidates]
    steps, answer, correct, score = candidates[choose([c[3] for c in candidates], answers)]
    vote = majority_vote(answers)
    return SearchResult(problem_id, method, list(steps), answer, correct, score,
                        None if vote is None else answers[vote], vote is not None and candidates[vote][2],
                        len(candidates), sum(a is not None for a in answers), samples, stages, tokens)
