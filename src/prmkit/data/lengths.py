"""The length guard of every verb that feeds a model: a text over `MAX_CHARS_PER_TOKEN` characters per token of
the context fits under no tokenizer, so it is refused before any model loads."""

from collections.abc import Iterable, Iterator
from dataclasses import replace

from prmkit.data.records import Pool, Trace

__all__ = ["DEFAULT_CONTEXT", "MAX_CHARS_PER_TOKEN", "check_lengths", "overlong"]

MAX_CHARS_PER_TOKEN = 10
DEFAULT_CONTEXT = 8192  # tokens, when the model's own is unknown


def overlong(pools: Iterable[Pool], context: int | None) -> Iterator[tuple[Pool, Trace | None, str]]:
    """(pool, trace or None for the question, why) for each question or trace with a text (the question, a step)
    over `MAX_CHARS_PER_TOKEN` characters a token of `context`."""
    context = context or DEFAULT_CONTEXT
    limit = context * MAX_CHARS_PER_TOKEN
    tail = (f"more than the limit of {limit} ({MAX_CHARS_PER_TOKEN} per token of the model's context of {context} "
            "tokens)")
    for pool in pools:
        if len(pool.problem.question) > limit:
            yield pool, None, f"the question has {len(pool.problem.question)} characters, {tail}"
            continue
        for t in pool.traces:
            worst = max(range(len(t.steps)), key=lambda k: len(t.steps[k]), default=None)
            if worst is not None and len(t.steps[worst]) > limit:
                yield pool, t, f"step {worst + 1} has {len(t.steps[worst])} characters, {tail}"


def check_lengths(pools: Iterable[Pool], context: int | None, what: str = "the model", skip: bool = False,
                  flag: str | None = "--skip-too-long") -> tuple[list[Pool], int]:
    """(`pools`, 0) when every text fits the limit (`overlong`). Otherwise a ValueError naming the first text that
    does not, or, with `skip`, (the pools without the traces that hold one, how many traces were left out); a
    question that does not fit leaves out its whole pool."""
    pools = list(pools)
    bad = list(overlong(pools, context))
    if not bad:
        return pools, 0
    if not skip:
        pool, trace, why = bad[0]
        where = pool.origin or f"problem {pool.problem.id}"
        who = f"trace {trace.id}: " if trace is not None else ""
        hint = f", or pass {flag} to skip such traces" if flag else ""
        raise ValueError(f"{where}: {who}{why}: too long for {what}; shorten it{hint}")
    drop_pools = {id(p) for p, t, _ in bad if t is None}
    drop_traces = {t.id for _, t, _ in bad if t is not None}
    kept, skipped = [], 0
    for pool in pools:
        if id(pool) in drop_pools:
            skipped += len(pool.traces)
            continue
        traces = [t for t in pool.traces if t.id not in drop_traces]
        skipped += len(pool.traces) - len(traces)
        if traces or not pool.traces:  # a pool left with no trace is left out (not counted as empty)
            kept.append(replace(pool, traces=traces))
    return kept, skipped
