"""OmegaPRM step labels (Luo et al., 2024, sec 3.2): a binary search for a CoT's first error, a prefix correct when
any of its M rollouts reaches the right answer (the plain search over one CoT, not OmegaPRM's MCTS)."""

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
    """The binary search over prefix lengths of one CoT: `lo` the longest known correct, `hi` the shortest known
    incorrect (None: the CoT is correct). Ask `next_query()`, give its verdict to `answer`, until it is None."""

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
        return None if self.hi is None or self.hi - self.lo <= 1 else (self.lo + self.hi) // 2

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
        """The 0-based index of the first wrong step (-1: none), once `next_query()` is None."""
        return -1 if self.hi is None else self.hi - 1


def first_error(n_steps: int, final_correct: bool, oracle: Callable[[int], bool]) -> tuple[int, list[int]]:
    """(first wrong step, 0-based or -1, the prefix lengths queried) by binary search over `oracle(n)`, whether
    the prefix of n steps is still correct; about log2 N queries, none for a correct CoT.
    Example: 5 steps, the CoT wrong, prefixes correct up to 2 steps: queries 2, 3 -> (2, [2, 3])."""
    search = FirstErrorSearch(n_steps, final_correct)
    while (n := search.next_query()) is not None:
        search.answer(n, oracle(n))
    return search.first_error, search.queried


def first_error_labels(n_steps: int, error: int) -> list[float]:
    """Steps before the 0-based first error 1, from it on 0 (-1 = none): monotone correctness, so the CoT's min is
    unchanged. Example: 5 steps, first error 2 -> [1, 1, 0, 0, 0]; -1 -> [1, 1, 1, 1, 1]."""
    if error != -1 and not 0 <= error < n_steps:
        raise ValueError(f"first error {error} outside step indices 0..{n_steps - 1} (or -1, none)")
    cut = n_steps if error < 0 else error
    return [1.0] * cut + [0.0] * (n_steps - cut)


class OmegaPRMLabeler(RolloutLabeler):
    """OmegaPRM labels: a problem's binary searches in lockstep, one round of M-rollout queries at a time."""

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
