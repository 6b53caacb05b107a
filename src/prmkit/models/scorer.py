"""`StepScorer`: the one interface best-of-K, beam search and RL rewards accept (an ORM: one score a trace), and
`SCORERS` / `load_scorer`, the one way to load one."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from importlib import import_module
from itertools import groupby
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from prmkit.models.aggregate import aggregate

if TYPE_CHECKING:
    from prmkit.data.records import Pool

__all__ = ["SCORERS", "BatchStepScorer", "ScorerError", "StepScorer", "check_scorer_kind", "load_scorer", "score_items",
           "score_traces"]


class ScorerError(RuntimeError):
    """A scorer that gives no scores, or wrong ones; one line: the scorer, where, what happened, what to do."""


@runtime_checkable
class StepScorer(Protocol):
    """`score_steps`, and optional members with defaults (a subclass has them; a reward model sets its own)."""

    kind: str = ""  # what the scores are, written into score records ("": the scorer kind of its spec)
    default_aggregation: str = "prod"  # step scores -> trace score unless one is asked for
    scored_tokens: int = 0  # tokens read so far, where the scorer counts them

    def score_steps(self, question: str, step_lists: list[list[str]]) -> list[list[float]]:
        """Per-step scores of each candidate trace (a list of steps) of `question`, in input order."""
        ...

    def limit_batches(self, max_tokens: int, max_batch: int) -> None:
        """Padded tokens and traces per forward pass at most, where the scorer batches them (default: its own)."""

    def check_fits(self, pools: list[Pool]) -> None:
        """A ValueError naming the first trace of `pools` too long for the scorer (default: none checked)."""


@runtime_checkable
class BatchStepScorer(Protocol):
    """A step scorer that also batches across questions (a reward model: less padding, fewer passes)."""

    def score_steps(self, question: str, step_lists: list[list[str]]) -> list[list[float]]: ...

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
    """One score per trace: the step scores aggregated by `AGGREGATIONS[aggregation]` (empty trace -> 0).
    Example: step scores [[0.2, 0.5], [0.4]], "min" -> [0.2, 0.4]."""
    return [aggregate(scores, aggregation) for scores in scorer.score_steps(question, step_lists)]


def _lazy(module: str) -> Callable[..., StepScorer]:
    def load(path: str, **options: Any) -> StepScorer:
        return import_module(f"prmkit.models.{module}").load(path, **options)

    load.__doc__ = f"prmkit.models.{module}.load"
    return load


# scorer kind -> loader of a `StepScorer` from a path and options (the path's meaning is the loader's)
SCORERS: dict[str, Callable[..., StepScorer]] = {
    "reward-model": _lazy("reward"),  # PRM, ORM, prm3 and the PUM value model (`bt` head) alike
    "token-classification": _lazy("token_classification"),  # a separator's class probabilities (Qwen2.5-Math-PRM)
    "step-tag": _lazy("step_tag"),  # a causal LM's good/bad token at a step tag (Math-Shepherd's PRM)
    "openai-pooling": _lazy("pooling_client"),  # a vLLM server's /pooling endpoint, task token_classify
    "truth": _lazy("truth"),  # the bench's exact step checker (the oracle); PATH: the bench problems
    "rule": _lazy("rule"),  # each step's own arithmetic evaluated (untrained); no PATH: `rule:`
}


def check_scorer_kind(kind: str) -> None:
    if kind not in SCORERS:
        raise ValueError(f"unknown scorer '{kind}'; choose from {', '.join(SCORERS)}")


def load_scorer(path: str | os.PathLike[str], kind: str = "reward-model",
                options: dict[str, Any] | None = None) -> StepScorer:
    """The step scorer of kind `kind` (a name in `SCORERS`) loaded from `path` with its loader's `options`."""
    check_scorer_kind(kind)
    scorer = SCORERS[kind](os.fspath(path), **(options or {}))
    if not isinstance(scorer, StepScorer):
        raise TypeError(f"scorer loader '{kind}' returned a {type(scorer).__name__}, which has no score_steps")
    return scorer
