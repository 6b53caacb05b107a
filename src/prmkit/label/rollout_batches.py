"""Generation batches across problems for the rollout labelers (Math-Shepherd, OmegaPRM, PUM's students).

A rollout labeler labels one pool by a plan: a generator that yields the (trace, n) prefixes it needs in a round
(Math-Shepherd: one round, every proper prefix; OmegaPRM: one round per step of its binary searches; PUM: one round
per student, the baseline and every proper prefix), is sent their rollouts, and returns the pool's `Labeled` (PUM:
one student's part of it, `prmkit.label.pum.labeler`). Labeled pool by pool, a generation batch holds one
problem's prefixes (a dozen rows on a bench problem), which leaves a GPU mostly idle. `label_stream` runs the plans
of many pools at once: the pending prefixes of the pools in flight, oldest pool first, fill each
`generate_rendered` call up to `batch_size` rows (`PrefixRoller.prefixes_per_batch` prefixes of K rows), and a
pool is yielded, in input order, as soon as its plan returns and every pool before it has been yielded.

Nothing a record holds depends on the batching: a prefix's continuations are seeded from (seed, prefix id) alone
(`prmkit.generate.rollout.prefix_seed`, one random stream per row), its id and its ledger are its pool's
(`PoolRollouts`), and a prefix two traces of a pool share is still rolled out once. Bad input (a step holding
[STEP]) is found when its pool asks for it; the pools before that pool are finished and yielded first, then the
error is raised, as pool by pool. A batch holds pools of one set of stop strings (one domain), as the
pool-by-pool batches did.

    for done in label_stream(labeler.roller, labeler.plan, [(pool, {"math-shepherd": {"t1", "t2"}}), ...]): ...
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Set
from typing import TYPE_CHECKING, Any, TypeVar

from prmkit.data.records import Pool, Trace
from prmkit.domains import STOP
from prmkit.generate.rollout import PrefixRequest, check_requests, sample_checked
from prmkit.generate.rollout_records import Rollout

if TYPE_CHECKING:  # rollout_labeling's labelers run their plans here
    from prmkit.label.rollout_labeling import PoolRollouts, PrefixRoller

__all__ = ["Plan", "label_stream", "run_plan"]

R = TypeVar("R")  # what a plan returns: a pool's `Labeled`, or a part of it (one PUM student's rollouts)

# a pool's labeling: yields the prefixes of a round, is sent {(trace id, n): rollout}, returns the pool's records
Plan = Generator[list[tuple[Trace, int]], dict[tuple[str, int], Rollout], R]
PlanOf = Callable[[Pool, Mapping[str, Set[str]], "PoolRollouts"], Plan[R]]


def run_plan(plan: Plan[R], rolls: PoolRollouts) -> R:
    """One pool's plan, its rounds rolled out in batches of that pool's prefixes only."""
    try:
        asked = next(plan)
        while True:
            asked = plan.send(rolls.roll(asked))
    except StopIteration as stop:
        return stop.value


class _Job:
    """One pool in flight: its plan, the requests of its round not yet sent, and how many are out."""

    def __init__(self, roller: PrefixRoller, plan_of: PlanOf[Any], pool: Pool, todo: Mapping[str, Set[str]]):
        self.roller, self.rolls = roller, roller.for_pool(pool)
        self.plan = plan_of(pool, todo, self.rolls)
        self.stops = roller.sampling.stop or STOP.get(pool.problem.domain, ())  # a batch shares its stop strings
        self.waiting: deque[tuple[PrefixRequest, str, int]] = deque()  # request, rendered text, tokens read
        self.out = 0
        self.result: Any = None
        self.returned = False
        self.error: Exception | None = None
        self._step(None)

    def _step(self, answers: dict[tuple[str, int], Rollout] | None) -> None:
        """Advance the plan until it asks for prefixes not rolled out yet, or returns."""
        try:
            while True:
                asked = next(self.plan) if answers is None else self.plan.send(answers)
                self.ids, new = self.rolls.ask(asked)
                if new:
                    rendered = check_requests(new, self.roller.backend, self.roller.sampling.template)
                    self.waiting.extend((r, *text) for r, text in zip(new, rendered, strict=True))
                    return
                answers = self.rolls.answers(self.ids)
        except StopIteration as stop:
            self.result, self.returned = stop.value, True
        except ValueError as err:  # bad input: raised when this pool's turn comes (module doc)
            self.error = err

    def take(self, record: Rollout) -> None:
        self.rolls.done[record.prefix_id] = record
        self.out -= 1
        if not self.out and not self.waiting:
            self._step(self.rolls.answers(self.ids))

    @property
    def finished(self) -> bool:
        return self.returned or (self.error is not None and not self.out)


def label_stream(roller: PrefixRoller, plan_of: PlanOf[R],
                 items: Iterable[tuple[Pool, Mapping[str, Set[str]]]]) -> Iterator[R]:
    """What the plan returns (a `Labeled`) for each (pool, todo) of `items`, in order, their plans' prefixes rolled
    out in batches across pools (module doc). Pools are taken from `items` only while the pools in flight cannot
    fill a batch."""
    size, items = roller.prefixes_per_batch, iter(items)
    jobs: deque[_Job] = deque()
    more = True
    while jobs or more:
        while more and not any(j.error for j in jobs) and sum(len(j.waiting) for j in jobs) < size:
            item = next(items, None)
            if item is None:
                more = False
            else:
                jobs.append(_Job(roller, plan_of, *item))
        batch: list[tuple[_Job, tuple[PrefixRequest, str, int]]] = []
        stops = next((j.stops for j in jobs if j.waiting), ())
        for job in (j for j in jobs if j.stops == stops):
            while job.waiting and len(batch) < size:
                batch.append((job, job.waiting.popleft()))
                job.out += 1
        if batch:
            records = sample_checked([r for _, r in batch], roller.backend, roller.sampling)
            for (job, _), record in zip(batch, records, strict=True):
                job.take(record)
        while jobs and jobs[0].finished:
            job = jobs.popleft()
            if job.error is not None:
                raise job.error
            yield job.result
        if not batch and jobs and not jobs[0].finished:
            raise AssertionError("a pool in flight neither asks for prefixes nor finishes")
