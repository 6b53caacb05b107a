"""The rollouts of step prefixes for the rollout labelers (Math-Shepherd, OmegaPRM, PUM's students): shared within
a pool, batched across pools, and each trace's cost ledger.

A prefix of n steps is the rollout request `<t>@<n>`, t the pool's first trace whose first n steps it is (n < N),
`<problem_id>@0` the empty prefix; its M continuations (`PrefixRoller`, over the rollout primitive
`prmkit.generate.rollout`) are validated against the problem's answer. Traces of one pool that start alike (a right
trace and its copy slipped at step k share their first k - 1 steps) ask for the same prefix: it is rolled out once
per pool and shared (`PoolRollouts`), and its id, and so its seed, depend only on the pool's traces, never on which
of them a call labels. The ledger of a trace counts, measured: `tokens_read` (prompt + prefix tokens, once per
queried prefix, as the backend prefills them for its M continuations), `tokens_generated` (all continuation
tokens), both with a shared prefix's tokens divided among the traces of the call that asked for it (so the ledgers
sum to what was spent); `prefixes`, `prefixes_shared` (of those, how many another trace also asked for) and
`rollouts`; and `tokens_read_cached`: the prompt and the longest queried prefix once, what an engine with a prefix
cache reads (the paper's KV-caching assumption, appendix A). `step_tokens` is the trace's mean tokens per step, the
s of the paper's formulas.

A rollout labeler labels one pool by a plan: a generator that yields the (trace, n) prefixes it needs in a round
(Math-Shepherd: one round; OmegaPRM: one per step of its binary searches; PUM: one per student), is sent their
rollouts, and returns the pool's `Labeled` (PUM: one student's part of it). Pool by pool, a generation batch holds
one problem's prefixes (a dozen rows on a bench problem), which leaves a GPU mostly idle, so `label_stream` runs the
plans of many pools at once: the pending prefixes of the pools in flight, oldest pool first, fill each batch up to
`batch_size` rows, and each pool is yielded, in input order, as soon as its plan returns.

Nothing a record holds depends on the batching: a prefix's continuations are seeded from (seed, prefix id) alone
(`prmkit.generate.rollout.prefix_seed`), and its id and ledger are its pool's. Bad input (a step holding [STEP]) is
raised when its pool's turn comes, after the pools before it are yielded, as pool by pool. A batch holds pools of
one set of stop strings (one domain).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence, Set
from typing import Any, TypeVar

from prmkit.data.records import Pool, Trace
from prmkit.domains import STOP
from prmkit.generate.backends import PromptBackend
from prmkit.generate.config import SamplerConfig
from prmkit.generate.prompts import build_prompt
from prmkit.generate.rollout import PrefixRequest, check_requests, partial_answer, sample_checked
from prmkit.generate.rollout_records import Rollout

__all__ = ["Plan", "PoolRollouts", "PrefixRoller", "label_stream"]


class PrefixRoller:
    """M validated continuations after step prefixes, with the per-trace ledger (see the module doc).

    `backend` replaces building one from `config` (e.g. a model already in memory).
    """

    def __init__(self, config: SamplerConfig, backend: PromptBackend | None = None):
        if config.k < 1:
            raise ValueError(f"k (rollouts per prefix) must be >= 1, got {config.k}")
        self.config, self.backend = config, backend if backend is not None else config.make_backend()
        self.sampling = config.sampling()

    def for_pool(self, pool: Pool) -> PoolRollouts:
        """The rollouts of one pool's labeling: identical prefixes rolled out once and shared (module doc)."""
        return PoolRollouts(self, pool)

    def unreadable(self, pool: Pool, ids: Set[str]) -> dict[str, str]:
        """{trace id: why} for the traces in `ids` whose longest rolled-out prefix (prompt + every step but the
        last) leaves no room to generate in the model's context; tokenizer only."""
        context = self.backend.context_length()
        if not context:
            return {}
        prompt = self.backend.render(build_prompt(pool.problem, self.sampling.template))
        out = {}
        for t in pool.traces:
            if t.id in ids and t.steps:
                n = self.backend.count_tokens(partial_answer(prompt, t.steps[:-1])) or 0
                if n + self.sampling.max_new_tokens > context:
                    out[t.id] = (f"prompt and prefix have {n} tokens: with {self.sampling.max_new_tokens} new tokens "
                                 f"that exceeds the model's context of {context}")
        return out

    def step_tokens(self, pool: Pool, trace: Trace) -> float:
        """The mean tokens per step of `trace` as rolled out (its partial answer after the prompt)."""
        if not trace.steps:
            return 0.0
        prompt = self.backend.render(build_prompt(pool.problem, self.sampling.template))
        full = self.backend.count_tokens(partial_answer(prompt, trace.steps)) or 0
        return max(0, full - (self.backend.count_tokens(prompt) or 0)) / len(trace.steps)


class PoolRollouts:
    """The rollouts of one labeling call on one pool: `ask` for (trace, n) prefixes, in one or several rounds
    (OmegaPRM's binary searches); a prefix already rolled out in this call, or asked for twice, is sampled once.
    `ledger` then splits each rollout's tokens among the traces that asked for it."""

    def __init__(self, roller: PrefixRoller, pool: Pool):
        self.roller, self.pool = roller, pool
        self.owner: dict[tuple[str, ...], str] = {}
        for t in pool.traces:
            for n in range(1, len(t.steps)):
                self.owner.setdefault(tuple(t.steps[:n]), f"{t.id}@{n}")
        self.owner[()] = f"{pool.problem.id}@0"
        self.done: dict[str, Rollout] = {}
        self.askers: dict[str, set[str]] = {}

    def request_id(self, trace: Trace, n: int) -> str:
        return self.owner.get(tuple(trace.steps[:n]), f"{trace.id}@{n}")

    def ask(self, prefixes: Sequence[tuple[Trace, int]]) -> tuple[dict[tuple[str, int], str], list[PrefixRequest]]:
        """The request id of each (trace, n) asked for, and the requests not rolled out yet (each once); the
        askers are noted for the ledger. `answers(ids)` reads the rollouts once `done` holds them all."""
        ids = {(t.id, n): self.request_id(t, n) for t, n in prefixes}
        new: dict[str, PrefixRequest] = {}
        for t, n in prefixes:
            rid = ids[(t.id, n)]
            self.askers.setdefault(rid, set()).add(t.id)
            if rid not in self.done and rid not in new:
                new[rid] = PrefixRequest(rid, self.pool.problem, tuple(t.steps[:n]))
        return ids, list(new.values())

    def answers(self, ids: Mapping[tuple[str, int], str]) -> dict[tuple[str, int], Rollout]:
        return {key: self.done[rid] for key, rid in ids.items()}

    def ledger(self, trace: Trace, rollouts: Sequence[Rollout]) -> dict[str, Any]:
        """The measured cost of `trace`'s queried prefixes (module doc; paper_tokens is added by the labeler)."""
        order = {t.id: k for k, t in enumerate(self.pool.traces)}

        def share(tokens: int, r: Rollout) -> int:  # an integer split: the ledgers of the askers sum to `tokens`
            askers = sorted(self.askers.get(r.prefix_id, {trace.id}), key=lambda a: order.get(a, len(order)))
            base, rest = divmod(tokens, len(askers))
            return base + (askers.index(trace.id) < rest if trace.id in askers else 0)

        longest = max(rollouts, key=lambda r: r.prefix_steps, default=None)
        return {"tokens_read": sum(share(r.tokens_read or 0, r) for r in rollouts),
                "tokens_generated": sum(share(r.tokens_generated, r) for r in rollouts),
                "tokens_read_cached": (longest.tokens_read or 0) if longest else 0,
                "prefixes": len(rollouts),
                "prefixes_shared": sum(len(self.askers.get(r.prefix_id, ())) > 1 for r in rollouts),
                "rollouts": sum(len(r.continuations) for r in rollouts),
                "steps": len(trace.steps), "step_tokens": round(self.roller.step_tokens(self.pool, trace), 2)}

    def spent(self) -> tuple[int, int]:
        """(tokens read, tokens generated) of every prefix rolled out in this call, each once."""
        return (sum(r.tokens_read or 0 for r in self.done.values()),
                sum(r.tokens_generated for r in self.done.values()))


R = TypeVar("R")  # what a plan returns: a pool's `Labeled`, or a part of it (one PUM student's rollouts)

# a pool's labeling: yields the prefixes of a round, is sent {(trace id, n): rollout}, returns the pool's records
Plan = Generator[list[tuple[Trace, int]], dict[tuple[str, int], Rollout], R]
PlanOf = Callable[[Pool, Mapping[str, Set[str]], PoolRollouts], Plan[R]]


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
    size, items = max(1, roller.config.batch_size // roller.config.k), iter(items)  # batch_size rows, K a prefix
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
