"""OmegaPRM step labels (Luo et al., 2024, "Improve Mathematical Reasoning in Language Models by Automated
Process Supervision", sec 3.2): a binary search for the first error of a CoT over Monte Carlo prefix checks.

A prefix r_1..r_n is "correct" when any of its M rollouts reaches the right answer (MC(prefix) > 0). Assuming
correctness is monotone (a prefix holding an error stays wrong), the first error is the shortest incorrect prefix,
found with about log2 N queries: the empty prefix is taken as correct and the whole CoT as its own verdict, so a
correct CoT needs no query (all steps 1) and an incorrect one is searched between them. The first error is a 0-based
step index, -1 when there is none (ProcessBench's convention, `prmkit.evaluate.first_error`); the search itself
works on prefix lengths (the first error is the shortest incorrect prefix's last step). Labels: steps before the
first error 1, the first error 0, and the steps after it 0, which is what the monotone assumption says of them
(OmegaPRM itself keeps only the prefix up to the first error for training; a StepLabels record needs a score per
step, and a 0 after the first error leaves the CoT-level min, and so tau, unchanged). This is the plain binary
search over one CoT; OmegaPRM's MCTS over a tree of rollouts is not implemented. Cost O(N log N) tokens per CoT
(MCNIG paper appendix A, `prmkit.label.complexity.omegaprm_tokens`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Set
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from prmkit.data.records import Pool
from prmkit.label.complexity import omegaprm_tokens
from prmkit.label.rollout_batches import PoolRollouts
from prmkit.label.rollout_labeling import RolloutLabeler

if TYPE_CHECKING:
    from prmkit.label.rollout_batches import Plan

__all__ = ["FirstErrorSearch", "OmegaPRMLabeler", "first_error", "first_error_labels"]


@dataclass
class FirstErrorSearch:
    """The binary search's state for one CoT of `n_steps` steps whose whole is `final_correct`: `lo` is the
    longest prefix known correct, `hi` the shortest known incorrect (None: the CoT is correct, nothing to find).
    Ask `next_query()` for a prefix length to check, give its verdict to `answer`, until it returns None."""

    n_steps: int
    final_correct: bool
    lo: int = 0
    hi: int | None = None
    queried: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.n_steps < 0:
            raise ValueError("a CoT has >= 0 steps")
        self.hi = None if self.final_correct or self.n_steps == 0 else self.n_steps

    def next_query(self) -> int | None:
        if self.hi is None or self.hi - self.lo <= 1:
            return None
        return (self.lo + self.hi) // 2

    def answer(self, n: int, correct: bool) -> None:
        if n != self.next_query():
            raise ValueError(f"prefix {n} was not the pending query {self.next_query()}")
        self.queried.append(n)
        if correct:
            self.lo = n
        else:
            self.hi = n

    @property
    def first_error(self) -> int:
        """The 0-based index of the first wrong step (-1: none), once `next_query()` is None: the last step of the
        shortest incorrect prefix."""
        return -1 if self.hi is None else self.hi - 1


def first_error(n_steps: int, final_correct: bool, oracle: Callable[[int], bool]) -> tuple[int, list[int]]:
    """(first wrong step, 0-based or -1, the prefix lengths queried) by binary search over `oracle(n)`, whether
    the prefix of n steps is still correct.

    Example: 5 steps, the CoT wrong, prefixes correct up to 2 steps: queries 2 (correct), 3 (wrong) -> (2, [2, 3])
    (the third step, index 2, is the first wrong one).
    """
    search = FirstErrorSearch(n_steps, final_correct)
    while (n := search.next_query()) is not None:
        search.answer(n, oracle(n))
    return search.first_error, search.queried


def first_error_labels(n_steps: int, error: int) -> list[float]:
    """Steps before the first error 1, the first error and later steps 0 (see the module doc); `error` is 0-based,
    -1 = none.

    Example: 5 steps, first error 2 -> [1, 1, 0, 0, 0]; no error (-1) -> [1, 1, 1, 1, 1].
    """
    if error != -1 and not 0 <= error < n_steps:
        raise ValueError(f"first error {error} outside step indices 0..{n_steps - 1} (or -1, none)")
    cut = n_steps if error < 0 else error
    return [1.0] * cut + [0.0] * (n_steps - cut)


class OmegaPRMLabeler(RolloutLabeler):
    """OmegaPRM labels (method `omegaprm`): the binary searches of a problem's pending CoTs run in lockstep, one
    round of M-rollout queries at a time (`label_stream` batches the rounds of many problems together).
    `backend` replaces loading `config.model`."""

    NAME = "OmegaPRM"
    METHODS = ("omegaprm",)

    def plan(self, pool: Pool, todo: Mapping[str, Set[str]], rolls: PoolRollouts) -> Plan:
        traces = self.pending(pool, todo)
        searches = {t.id: FirstErrorSearch(len(t.steps), bool(t.correct)) for t in traces}
        done: dict[str, list] = {t.id: [] for t in traces}
        # a prefix two searches ask for is rolled out once
        while asked := [(t, n) for t in traces if (n := searches[t.id].next_query()) is not None]:
            rolled = yield asked
            for t, n in asked:
                searches[t.id].answer(n, rolled[(t.id, n)].solved > 0)
                done[t.id].append(rolled[(t.id, n)])
        rows = []
        for t in traces:
            ledger = rolls.ledger(t, done[t.id]) | {"first_error": searches[t.id].first_error,
                                                    "queried": searches[t.id].queried}
            ledger["paper_tokens"] = omegaprm_tokens(len(t.steps), ledger["step_tokens"], self.config.k)
            labels = first_error_labels(len(t.steps), searches[t.id].first_error)
            rows.append((t, dict.fromkeys(todo, labels), ledger))
        return self.labeled(pool, todo, rows)
