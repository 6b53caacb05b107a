"""PUM pairwise preference labels (pum_paper.txt sec 3.3, appendix A.2 and A.4): which of two prefixes of the same
problem is more useful, a tie, or too uncertain to say.

Candidate pairs (A.2, sec 3.3): *vertical* pairs are adjacent cuts of one trajectory; *horizontal* pairs are cuts of
two trajectories of the problem at the same relative position whose token lengths differ by at most 5 %
(||p_i| - |p_j|| / max(|p_i|, |p_j|) <= 0.05). Two trajectories of the same generator (`Trace.source`) are only
paired when one is correct and the other not (A.2's within-model rule); trajectories of different generators always.
The paper also balances within- and cross-model trajectory pairs 1:1; prmkit keeps every candidate and records which
kind each pair is (`PrefixPair.kind`, `within_model`) so the balance can be read off.

Labels (A.4), from the students' normalised utilities u_s:

    d_s = u_s(p_i) - u_s(p_j)  over the students valid for both;   d̄ = their (weighted) mean
    ε = max(ε_global, λ_res * 0.125 / N_eff)     ρ = min(n+, n-) / (n+ + n-)
    y = 1 if d̄ > ε;  -1 if d̄ < -ε;  0 (tie) if |d̄| <= ε and ρ <= ρ_max;  uncertain otherwise (dropped, counted)

The paper says ε_global is estimated "from the empirical distribution of |d̄| over candidate pairs" without naming
the statistic: prmkit takes its q-quantile, q = 0.25 by default (`margin_quantile`), and ρ_max = 0.25, λ_res = 1
(`max_conflict`, `resolution_scale`; the paper gives no values). 0.125 = 1/K for K = 8 rollouts; as in the paper,
this floor in solve-rate units is compared with d̄ in normalised units.
"""

from __future__ import annotations

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
    """One sampled prefix: the first `steps` steps of trace `trace_id`, cut for the relative `positions` (several
    when they snap to the same step count); `tokens` its length."""

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
    """A.2's horizontal-pair rule: ||p_i| - |p_j|| / max(|p_i|, |p_j|) <= tolerance.

    Example: 100 and 96 tokens -> 0.04 <= 0.05: matched; 100 and 94 -> 0.06: not.
    """
    longest = max(len_a, len_b)
    return longest > 0 and abs(len_a - len_b) / longest <= tolerance


def candidate_pairs(points: Sequence[PrefixPoint], tolerance: float = 0.05) -> list[CandidatePair]:
    """The vertical and horizontal candidate pairs among the prefixes of one problem (see the module doc), each
    unordered pair once; the shorter (vertical) or first-listed (horizontal) prefix is `a`.

    Example: trace t0 cut at steps 1 and 2, trace t1 (another generator) cut at step 1, all at r = 0.5 with 40, 80
    and 41 tokens: vertical (t0@1, t0@2); horizontal (t0@1, t1@1) (40 vs 41: 2.4 % apart); t0@2 vs t1@1 differ
    too much.
    """
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
    """({s: d_s}, d̄) over the students valid for both prefixes (A.4); d̄ is their mean, or their weighted mean
    (weights rescaled over those students), as `intrinsic_utility` takes it. No common student: ({}, nan).

    Example: u_a {s1: 1.0, s2: 0.5, s3: 0.2}, u_b {s1: 0.0, s2: 1.0}: d = {s1: 1.0, s2: -0.5}, d̄ = 0.25.
    """
    d = {s: u_a[s] - u_b[s] for s in u_a if s in u_b}
    return d, intrinsic_utility(d, weights)


def global_margin(abs_differences: Sequence[float], quantile: float = 0.25) -> float:
    """ε_global (A.4): the `quantile` of |d̄| over the candidate pairs (numpy's default: linear interpolation
    between order statistics). No pair: 0.

    Example: |d̄| = (0, 0.1, 0.2, 0.4, 1.0), quantile 0.25 -> position 1 -> 0.1; quantile 0.5 -> 0.2.
    """
    if not 0.0 <= quantile <= 1.0:
        raise ValueError(f"quantile must lie in [0, 1], got {quantile}")
    return float(np.quantile(abs_differences, quantile)) if len(abs_differences) else 0.0


def resolution_floor(n_eff: float, rollouts: int = 8, scale: float = 1.0) -> float:
    """ε_floor = λ_res * (1/K) / N_eff (A.4): one rollout's worth of solve rate (1/8 = 0.125 for K = 8), shared
    by the N_eff effective students.

    Example: K = 8, two uniform students, λ = 1: 0.125 / 2 = 0.0625.
    """
    if n_eff <= 0 or rollouts < 1:
        raise ValueError("the resolution floor needs N_eff > 0 and K >= 1")
    return scale * (1.0 / rollouts) / n_eff


def conflict_rate(differences: Sequence[float]) -> float:
    """ρ = min(n+, n-) / (n+ + n-) (A.4): how much the students disagree on the direction (zero differences
    count for neither side; all zero: 0).

    Example: d = (0.5, -0.2, 0.1, 0) -> n+ = 2, n- = 1: 1/3.
    """
    pos = sum(d > 0 for d in differences)
    neg = sum(d < 0 for d in differences)
    return min(pos, neg) / (pos + neg) if pos + neg else 0.0


def pair_label(d_mean: float, margin: float, conflict: float, max_conflict: float = 0.25) -> int | None:
    """y_ij (A.4): 1 (p_i preferred), -1 (p_j preferred), 0 (tie) or None (uncertain: dropped).

    Examples with ε = 0.1: d̄ = 0.3 -> 1; -0.3 -> -1; 0.05 with ρ = 0 -> 0; 0.05 with ρ = 0.5 -> None.
    """
    if d_mean > margin:
        return 1
    if d_mean < -margin:
        return -1
    return 0 if conflict <= max_conflict else None


def pair_margin(weights: Sequence[float], epsilon_global: float, rollouts: int = 8, scale: float = 1.0) -> float:
    """ε = max(ε_global, ε_floor) for a pair whose valid students carry `weights` (N_eff from them, A.4).

    Example: ε_global 0.05, two uniform students, K = 8: max(0.05, 0.0625) = 0.0625.
    """
    return max(epsilon_global, resolution_floor(effective_students(weights), rollouts, scale))
