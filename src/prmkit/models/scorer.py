"""`StepScorer`: the one interface best-of-K, beam search and RL rewards accept.

A step scorer maps candidate traces of one question to per-step scores (an ORM: one score a trace, as a
one-element list). `RewardModel` implements it; so can anything else with `score_steps` (a judge, a lookup).

    >>> class Lengths:  # a toy scorer: longer steps score higher
    ...     def score_steps(self, question, step_lists):
    ...         return [[len(s) / 10 for s in steps] for steps in step_lists]
    >>> score_traces(Lengths(), "q", [["ab", "abcde"], ["abcd"]], "min")
    [0.2, 0.4]
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import groupby
from typing import Protocol, runtime_checkable

from prmkit.models.aggregate import aggregate

__all__ = ["BatchStepScorer", "StepScorer", "score_items", "score_traces"]


@runtime_checkable
class StepScorer(Protocol):
    def score_steps(self, question: str, step_lists: list[list[str]]) -> list[list[float]]:
        """Per-step scores of each candidate trace (a list of steps) of `question`, in input order."""
        ...


@runtime_checkable
class BatchStepScorer(StepScorer, Protocol):
    """A step scorer that also batches across questions (a reward model: less padding, fewer passes)."""

    def score_many(self, items: list[tuple[str, list[str]]]) -> Iterator[tuple[int, list[float]]]:
        """(index into `items`, step scores) for (question, steps) items, in any order, as they are done."""
        ...


def score_items(scorer: StepScorer, items: list[tuple[str, list[str]]]) -> Iterator[tuple[int, list[float]]]:
    """(index, step scores) of (question, steps) items of many questions: through `score_many` when the scorer
    batches across questions, else one `score_steps` call per run of items with the same question."""
    if isinstance(scorer, BatchStepScorer):
        yield from scorer.score_many(items)
        return
    start = 0
    for question, run in groupby(items, key=lambda item: item[0]):
        step_lists = [steps for _, steps in run]
        yield from enumerate(scorer.score_steps(question, step_lists), start)
        start += len(step_lists)


def score_traces(scorer: StepScorer, question: str, step_lists: list[list[str]],
                 aggregation: str = "prod") -> list[float]:
    """One score per trace: the step scores aggregated by `AGGREGATIONS[aggregation]` (empty trace -> 0)."""
    return [aggregate(scores, aggregation) for scores in scorer.score_steps(question, step_lists)]
