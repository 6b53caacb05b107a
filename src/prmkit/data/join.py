"""Pools joined with their StepLabels on `trace_id`: the one join behind training examples and TRL export.

    >>> [(t.id, lab is not None) for _, t, lab in join_labels(pools, labels)]  # doctest: +SKIP
    [('gsm8k-dev-0/6b_finetuning', True), ('gsm8k-dev-0/6b_verification', False)]
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from prmkit.data.records import Pool, StepLabels, Trace

__all__ = ["join_labels"]


def join_labels(pools: Iterable[Pool], labels: Iterable[StepLabels] | None
                ) -> Iterator[tuple[Pool, Trace, StepLabels | None]]:
    """(pool, trace, its labels or None) for every trace of every pool, in pool order; a later label record
    for the same trace wins."""
    by_id = {lab.trace_id: lab for lab in labels or []}
    for pool in pools:
        for trace in pool.traces:
            yield pool, trace, by_id.get(trace.id)
