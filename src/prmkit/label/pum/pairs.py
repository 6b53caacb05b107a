"""PUM pairwise preference labels (pum_paper sec 3.3, appendix A.2 and A.4): which of two prefixes of a problem is
more useful, a tie, or too uncertain to say (the choices the paper leaves open: docs/pum.md)."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations, pairwise

import numpy as np

from prmkit.label.pum.prefix_gain import effective_students, intrinsic_utility

__all__ = ["BT_TARGETS", "CandidatePair", "PrefixPoint", "candidate_pairs", "conflict_rate", "global_margin",
           "length_matched", "mean_difference", "pair_label", "pair_margin", "resolution_floor"]

# sec 3.4 eq. 8: preference label -> Bradley-Terry soft target
BT_TARGETS: dict[int, float] = {1: 1.0, 0: 0.5, -1: 0.0}


@dataclass(frozen=True)
class PrefixPoint:
    """The first `steps` steps of trace `trace_id`, cut for the relative `positions`; `tokens` its length."""

    prefix_id: str
    trace_id: str
    source: str
    correct: bool | None
    steps: int
    positions: tuple[float, ...]
    tokens: int


@dataclass(frozen=True)
class CandidatePair:
    a: PrefixPoint
    b: PrefixPoint
    kind: str  # "vertical" | "horizontal"
    within_model: bool


def length_matched(len_a: int, len_b: int, tolerance: float = 0.05) -> bool:
    """PUM A.2's horizontal-pair rule ||p_i| - |p_j|| / max(|p_i|, |p_j|) <= tolerance. Example: 100, 96 -> True."""
    longest = max(len_a, len_b)
    return longest > 0 and abs(len_a - len_b) / longest <= tolerance


def candidate_pairs(points: Sequence[PrefixPoint], tolerance: float = 0.05) -> list[CandidatePair]:
    """PUM A.2 / sec 3.3 candidate pairs of one problem's prefixes, each once: vertical (adjacent cuts of a trace,
    shorter is `a`) and horizontal (two traces at one position, length-matched; of one generator only when one is
    correct and the other not). Example: t0@1, t0@2, t1@1 at 40, 80, 41 tokens -> (t0@1, t0@2), (t0@1, t1@1)."""
    out: list[CandidatePair] = []
    by_trace: dict[str, list[PrefixPoint]] = {}
    for p in points:
        by_trace.setdefault(p.trace_id, []).append(p)
    for cuts in by_trace.values():
        cuts = sorted(cuts, key=lambda p: p.steps)
        out += [CandidatePair(a, b, "vertical", True) for a, b in pairwise(cuts)]
    seen: set[frozenset[str]] = set()
    for a, b in combinations(points, 2):
        if a.trace_id == b.trace_id or not set(a.positions) & set(b.positions):
            continue
        within = a.source == b.source
        if within and a.correct == b.correct:  # within-model: one correct, one incorrect (A.2)
            continue
        key = frozenset((a.prefix_id, b.prefix_id))
        if key not in seen and length_matched(a.tokens, b.tokens, tolerance):
            seen.add(key)
            out.append(CandidatePair(a, b, "horizontal", within))
    return out


def mean_difference(u_a: Mapping[str, float], u_b: Mapping[str, float],
                    weights: Mapping[str, float] | None = None) -> tuple[dict[str, float], float]:
    """({s: d_s}, d̄), d_s = u_s(p_i) - u_s(p_j) over the students valid for both, d̄ their (weighted) mean (PUM A.4);
    none: ({}, nan). Example: {s1: 1.0, s2: 0.5, s3: 0.2} vs {s1: 0.0, s2: 1.0} -> ({s1: 1.0, s2: -0.5}, 0.25)."""
    d = {s: u_a[s] - u_b[s] for s in u_a if s in u_b}
    return d, intrinsic_utility(d, weights)


def global_margin(abs_differences: Sequence[float], quantile: float = 0.25) -> float:
    """ε_global (PUM A.4): the `quantile` of |d̄| over the candidate pairs (linear interpolation); no pair: 0.
    Example: (0, 0.1, 0.2, 0.4, 1.0), 0.25 -> 0.1; 0.5 -> 0.2."""
    if not 0.0 <= quantile <= 1.0:
        raise ValueError(f"quantile must lie in [0, 1], got {quantile}")
    return float(np.quantile(abs_differences, quantile)) if len(abs_differences) else 0.0


def resolution_floor(n_eff: float, rollouts: int = 8, scale: float = 1.0) -> float:
    """ε_floor = λ_res * (1/K) / N_eff (PUM A.4). Example: K = 8, N_eff = 2, λ = 1 -> 0.0625."""
    if n_eff <= 0 or rollouts < 1:
        raise ValueError("the resolution floor needs N_eff > 0 and K >= 1")
    return scale * (1.0 / rollouts) / n_eff


def conflict_rate(differences: Sequence[float]) -> float:
    """ρ = min(n+, n-) / (n+ + n-) (PUM A.4), zeros counting for neither side. Example: (0.5, -0.2, 0.1, 0) -> 1/3."""
    pos = sum(d > 0 for d in differences)
    neg = sum(d < 0 for d in differences)
    return min(pos, neg) / (pos + neg) if pos + neg else 0.0


def pair_label(d_mean: float, margin: float, conflict: float, max_conflict: float = 0.25) -> int | None:
    """y_ij (PUM A.4): 1 if d̄ > ε, -1 if d̄ < -ε, 0 (tie) if ρ <= ρ_max, else None (uncertain: dropped).
    Example, ε = 0.1: 0.3 -> 1; -0.3 -> -1; 0.05, ρ = 0 -> 0; 0.05, ρ = 0.5 -> None."""
    if d_mean > margin:
        return 1
    if d_mean < -margin:
        return -1
    return 0 if conflict <= max_conflict else None


def pair_margin(weights: Sequence[float], epsilon_global: float, rollouts: int = 8, scale: float = 1.0) -> float:
    """ε = max(ε_global, ε_floor) for a pair whose valid students carry `weights` (PUM A.4).
    Example: ε_global 0.05, two uniform students, K = 8 -> 0.0625."""
    return max(epsilon_global, resolution_floor(effective_students(weights), rollouts, scale))
