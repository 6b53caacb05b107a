"""`truth`: the bench's exact step checker as a step scorer, the oracle a trained PRM is measured against."""

import os
from collections.abc import Iterable
from typing import Any

from prmkit.data.bench import truth_labels
from prmkit.data.bench_checker import check_steps, first_wrong
from prmkit.data.formats import read_pools
from prmkit.data.records import Problem
from prmkit.models.scorer import StepScorer

__all__ = ["TruthScorer", "load", "truth_scores"]


def truth_scores(problem: Problem, steps: list[str]) -> list[float]:
    """1.0 for each step before the checker's first wrong (or undecided) step, 0.0 from it on.
    Example: ["15 - 6 = 9.", "9 + 12 = 20.", "The answer is 21."] where 9 + 12 = 21 is right -> [1, 0, 0]."""
    return [float(x) for x in truth_labels(len(steps), first_wrong(check_steps(problem, steps)))]


class TruthScorer(StepScorer):
    """The exact checker's truth of each trace of a bench problem, found by its question text (else ValueError)."""

    def __init__(self, problems: Iterable[Problem], source: str = "the given problems"):
        self.source = source
        self.problems: dict[str, Problem] = {}
        for p in problems:
            self.problems.setdefault(p.question, p)

    def _problem(self, question: str) -> Problem:
        problem = self.problems.get(question)
        if problem is None or "graph" not in problem.meta:
            why = "is not among" if problem is None else "has no computation graph (meta['graph']) in"
            raise ValueError(f"scorer 'truth': the question {question[:80]!r} {why} the bench problems of "
                             f"{self.source}; the oracle scores bench problems only (`prmkit data bench`)")
        return problem

    def score_steps(self, question: str, step_lists: list[list[str]]) -> list[list[float]]:
        problem = self._problem(question)
        return [truth_scores(problem, steps) for steps in step_lists]


def load(path: str, **options: Any) -> TruthScorer:
    """The oracle over the problems of `path`: one or more Problem or pool files joined by `os.pathsep` (`:`)."""
    if options:
        raise ValueError(f"scorer 'truth' takes no options, got {', '.join(sorted(options))}")
    if not (files := [f for f in path.split(os.pathsep) if f]):
        raise ValueError("scorer 'truth' needs the bench problems: truth:PROBLEMS.jsonl (several joined by ':')")
    problems = [pool.problem for f in files for pool in read_pools(f, allow_duplicates=True)]
    if not any("graph" in p.meta for p in problems):
        raise ValueError(f"scorer 'truth': {', '.join(files)} hold no bench problem (none has meta['graph']); "
                         "give the problems of `prmkit data bench` or a bench run's problems.jsonl")
    return TruthScorer(problems, " + ".join(files))
