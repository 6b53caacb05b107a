"""The rollouts of step prefixes for the rollout labelers: identical prefixes of a pool rolled out once and shared,
prefixes of many pools batched together, and each trace's cost ledger (fields: docs/formats.md)."""

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
    """M validated continuations after step prefixes; `backend` replaces building one from `config`."""

    def __init__(self, config: SamplerConfig, backend: PromptBackend | None = None):
        if config.k < 1:
            raise ValueError(f"k (rollouts per prefix) must be >= 1, got {config.k}")
        self.config, self.backend = config, backend if backend is not None else config.make_backend()
        self.sampling = config.sampling()

    def for_pool(self, pool: Pool) -> PoolRollouts:
        return PoolRollouts(self, pool)

    def unreadable(self, pool: Pool, ids: Set[str]) -> dict[str, str]:
        """{trace id: why} for the traces in `ids` whose longest prefix leaves no room to generate; tokenizer only."""
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
    """The rollouts of one labeling call on one pool, each prefix sampled once. Its request id `<trace>@<n>` names
    the pool's first trace holding it (`<problem>@0`: empty), so its seed depends on the pool alone."""

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
        """The request id of each (trace, n) asked for, and the requests not rolled out yet (each once)."""
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
        """The measured cost of `trace`'s queried prefixes, a shared prefix's tokens split among its askers."""
        order = {t.id: k for k, t in enumerate(self.pool.traces)}

        def share(tokens: int, r: Rollout) -> int:  # an integer split: the ledgers of the askers sum to `tokens`
            askers = sorted(self.askers.get(r.prefix_id, {trace.id}), key=lambda a: order.get(a, len(order)))
            base, rest = divmod(tokens, len(askers))
            return base + (askers.index(trace.id) < rest if trace.id in askers else 0)

        longest = max(rollouts, key=lambda r: r.prefix_steps, default=None)
        return {"tokens_read": sum(share(r.tokens_read or 0, r) for r in rollouts),
                "tokens_generated": sum(share(r.tokens_generated, r) for r in rollouts),
                "tokens_read_cached": (longest.tokens_read or 0) if longest else 0, "prefixes": len(rollouts),
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
        except ValueError as err:  # bad input: raised when this pool's turn comes
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
    """What the plan returns for each (pool, todo) of `items`, in order, the prefixes of the pools in flight
    (oldest first, one domain's stop strings a batch) filling batches of `batch_size` rows."""
    size, items = max(1, roller.config.batch_size // roller.config.k), iter(items)  # batch_size rows, K a prefix
    jobs: deque[_Job] = deque()
    more = True
    while jobs or more:
        while more and not any(j.error for j in jobs) and sum(len(j.waiting) for j in jobs) < size:
            if (item := next(items, None)) is None:
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
