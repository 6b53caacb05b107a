"""`truth`: the bench's exact step checker as a step scorer, the oracle a trained PRM is measured against.

Each question is looked up among bench problems (`prmkit data bench`'s Problem file, or any pool file holding them:
the spec `truth:runs/bench/problems.jsonl`, several files joined by `:` as in a PATH, `truth:a.jsonl:b.jsonl`), and
each trace is judged against that problem's computation graph by `prmkit.data.bench_checker`. The step scores are
the bench's truth labels (Math-Shepherd's convention): 1 before the first wrong step, 0 from it on.

A step the checker cannot decide (a number off the solution path stated outside any computation) counts as wrong,
as in the bench's truth labels (`first_wrong`): the oracle and the labels a PRM is trained on follow one rule.

    >>> from prmkit.data.bench import bench_problems
    >>> p = bench_problems(1, seed=0, levels=(2,))[0]  # 15 - 6 = 9, then 9 + 12 = 21
    >>> TruthScorer([p]).score_steps(p.question, [["15 - 6 = 9.", "9 + 12 = 21.", "The answer is 21."],
    ...                                           ["15 - 6 = 9.", "9 + 12 = 20.", "The answer is 21."]])
    [[1.0, 1.0, 1.0], [1.0, 0.0, 0.0]]

A question that is not a bench problem of the files (absent, or without `meta["graph"]`) is a ValueError naming it
and the files: the oracle knows the truth of bench problems only.
"""

from __future__ import annotations

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
    """1.0 for each step before the checker's first wrong (or undecided) step, 0.0 from it on."""
    return [float(x) for x in truth_labels(len(steps), first_wrong(check_steps(problem, steps)))]


class TruthScorer(StepScorer):
    """The exact checker's truth of each trace of a bench problem, found by its question text."""

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
    files = [f for f in path.split(os.pathsep) if f]
    if not files:
        raise ValueError("scorer 'truth' needs the bench problems: truth:PROBLEMS.jsonl (several joined by ':')")
    problems = [pool.problem for f in files for pool in read_pools(f, allow_duplicates=True)]
    if not any("graph" in p.meta for p in problems):
        raise ValueError(f"scorer 'truth': {', '.join(files)} hold no bench problem (none has meta['graph']); "
                         "give the problems of `prmkit data bench` or a bench run's problems.jsonl")
    return TruthScorer(problems, " + ".join(files))
