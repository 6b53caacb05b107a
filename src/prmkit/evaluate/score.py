"""Score candidate traces with a reward model: every step probability of a trace from one forward pass,
traces batched by length (a budget of padded tokens per batch). Writes one record per trace:

    {"id": "gsm8k-dev-500/6b_finetuning", "problem_id": "gsm8k-dev-500", "index": 0, "answer": "18",
     "correct": true, "kind": "prm", "step_scores": [0.91, 0.84], "aggregation": "prod", "score": 0.764}

`index` is the trace's position in its pool.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from prmkit.data.records import Pool
from prmkit.evaluate.aggregate import aggregate
from prmkit.train.model import PRM

__all__ = ["score_pools"]


def _batches(items: list[tuple[int, int]], max_tokens: int, max_batch: int) -> Iterator[list[int]]:
    """Indices of (index, length) items sorted by length, in batches of at most max_tokens padded tokens."""
    order = sorted(items, key=lambda x: x[1])
    current: list[int] = []
    for idx, length in order:
        if (current and (len(current) + 1) * length > max_tokens) or len(current) >= max_batch:
            yield current
            current = []
        current.append(idx)
    if current:
        yield current


def score_pools(prm: PRM, pools: list[Pool], aggregation: str | None = None, max_tokens: int = 4096,
                max_batch: int = 64, skip: set[str] | None = None, stats: dict | None = None
                ) -> Iterator[dict[str, Any]]:
    """Yield a score record per trace (skipping ids in `skip`); `stats` receives tokens and seconds."""
    agg = aggregation or prm.config.aggregation
    flat = [(pool, k, t) for pool in pools for k, t in enumerate(pool.traces) if t.id not in (skip or set())]
    lengths = [(i, len(prm.encode(pool.problem.question, t.steps)[0])) for i, (pool, _, t) in enumerate(flat)]
    stats = stats if stats is not None else {}
    stats.setdefault("tokens", 0)
    stats.setdefault("seconds", 0.0)
    for batch in _batches(lengths, max_tokens, max_batch):
        start = time.perf_counter()
        probs = prm.step_probs([(flat[i][0].problem.question, flat[i][2].steps) for i in batch])
        stats["seconds"] += time.perf_counter() - start
        stats["tokens"] += sum(lengths[i][1] for i in batch)
        for i, p in zip(batch, probs, strict=True):
            pool, k, trace = flat[i]
            yield {"id": trace.id, "problem_id": pool.problem.id, "index": k, "answer": trace.answer,
                   "correct": trace.correct, "kind": prm.config.kind, "step_scores": p,
                   "aggregation": agg, "score": aggregate(p, agg)}
