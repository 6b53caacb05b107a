"""Filtering and subsampling of generated pools (MCNIG paper sec 3.1, "Filtering and Subsampling")."""

import random
from collections.abc import Iterable
from dataclasses import dataclass, field

from prmkit.data.records import Pool

__all__ = ["FilterReport", "filter_pools", "subsample"]


@dataclass
class FilterReport:
    """(stage, problems, traces) after each stage, and the number of problems with a correct trace."""

    stages: list[tuple[str, int, int]] = field(default_factory=list)

    def add(self, stage: str, pools: list[Pool]) -> None:
        self.stages.append((stage, len(pools), sum(len(p.traces) for p in pools)))

    def lines(self) -> list[str]:
        width = max(len(s) for s, _, _ in self.stages)
        return [f"{s:<{width}}  {n:>6} problems  {t:>7} traces" for s, n, t in self.stages]


def subsample(pool: Pool, max_traces: int, rng: random.Random) -> Pool:
    """Up to `max_traces` traces: one correct (if any), then incorrect ones, then more correct ones."""
    correct = [t for t in pool.traces if t.correct]
    wrong = [t for t in pool.traces if not t.correct]
    rng.shuffle(correct)
    rng.shuffle(wrong)
    chosen = correct[:1] + wrong[: max_traces - min(1, len(correct))]
    chosen += correct[1 : 1 + max_traces - len(chosen)]
    order = {id(t): k for k, t in enumerate(pool.traces)}
    return Pool(pool.problem, sorted(chosen, key=lambda t: order[id(t)]))


def filter_pools(pools: Iterable[Pool], max_traces: int = 8, seed: int = 0) -> tuple[list[Pool], FilterReport]:
    """MCNIG sec 3.1's three stages: drop traces without an answer, drop problems solved every time, `subsample`;
    returns the kept pools and the counts at every stage. C_q and W_q stay whole in `problem.meta`."""
    report = FilterReport()
    pools = list(pools)
    report.add("generated", pools)
    pools = [Pool(p.problem, [t for t in p.traces if t.answer is not None]) for p in pools]
    pools = [p for p in pools if p.traces]
    report.add("1. with an extractable answer", pools)
    pools = [p for p in pools if not all(t.correct for t in p.traces)]
    report.add("2. not solved every time", pools)
    pools = [subsample(p, max_traces, random.Random(f"{seed}:{p.problem.id}")) for p in pools]
    report.add(f"3. subsampled to <= {max_traces}", pools)
    return pools, report
