"""Math-Shepherd step labels (Wang et al., 2024, sec 3.3): M completions after every step prefix; the last step's
label is the CoT's own verdict."""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set
from typing import TYPE_CHECKING

from prmkit.data.records import Pool
from prmkit.label.complexity import shepherd_tokens
from prmkit.label.rollout_batches import PoolRollouts
from prmkit.label.rollout_labeling import RolloutLabeler

if TYPE_CHECKING:
    from prmkit.label.rollout_batches import Plan

__all__ = ["ESTIMATES", "MathShepherdLabeler", "mc_estimates"]


def mc_estimates(verdicts: Sequence[Sequence[bool]]) -> tuple[list[float], list[float]]:
    """(hard, soft) estimates per step (Math-Shepherd sec 3.3, eqs 3-4): hard_i = 1 if any completion after step i
    is correct, soft_i = the fraction correct.
    Example: [[T, F, F, F], [F, F, F, F], [T, T, T, T]] -> hard [1, 0, 1], soft [0.25, 0, 1]."""
    if any(len(v) == 0 for v in verdicts):
        raise ValueError("every step needs at least one completion verdict")
    hard = [1.0 if any(v) else 0.0 for v in verdicts]
    soft = [sum(map(bool, v)) / len(v) for v in verdicts]
    return hard, soft


# method -> which of mc_estimates' two lists it stores
ESTIMATES: dict[str, int] = {"math-shepherd": 1, "math-shepherd-hard": 0}


class MathShepherdLabeler(RolloutLabeler):
    """Math-Shepherd soft and/or hard labels from one round of rollouts per problem."""

    NAME = "Math-Shepherd"
    METHODS = tuple(ESTIMATES)

    def plan(self, pool: Pool, todo: Mapping[str, Set[str]], rolls: PoolRollouts) -> Plan:
        traces = self.pending(pool, todo)
        rolled = yield [(t, n) for t in traces for n in range(1, len(t.steps))]
        rows = []
        for t in traces:
            mine = [rolled[(t.id, n)] for n in range(1, len(t.steps))]
            verdicts = [[c.correct for c in r.continuations] for r in mine] + ([[bool(t.correct)]] if t.steps else [])
            estimates = mc_estimates(verdicts)
            ledger = rolls.ledger(t, mine)
            ledger["paper_tokens"] = shepherd_tokens(len(t.steps), ledger["step_tokens"], self.config.k)
            rows.append((t, {m: estimates[ESTIMATES[m]] for m in todo}, ledger))
        return self.labeled(pool, todo, rows)
