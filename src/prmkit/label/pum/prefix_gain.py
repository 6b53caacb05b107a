"""Prefix gain of PUM (pum_paper sec 3.1-3.2, appendix A.2-A.3): how much a prefix raises a student's solve rate."""

import math
from collections.abc import Mapping, Sequence
from itertools import accumulate

__all__ = ["PREFIX_POSITIONS", "STUDENT_WEIGHTINGS", "capability_weights", "effective_students", "gain",
           "intrinsic_utility", "normalisation", "normalise", "prefix_step_counts", "solve_rate"]

# A.2: the relative truncation positions of a trajectory
PREFIX_POSITIONS: tuple[float, ...] = (0.1, 0.2, 0.35, 0.5, 0.7, 0.9)

# sec 4.5: weights of the weak, medium and strong student groups; "uniform" is the main PUM target (eq. 5)
STUDENT_WEIGHTINGS: dict[str, tuple[float, float, float] | None] = {
    "uniform": None,
    "weak": (0.6, 0.3, 0.1),
    "strong": (0.1, 0.3, 0.6),
}


def prefix_step_counts(step_lengths: Sequence[int], positions: Sequence[float] = PREFIX_POSITIONS) -> dict[float, int]:
    """{r: n}: PUM A.2's relative cut r snapped to the step count n in 1..N-1 whose cumulative length is nearest
    r * total (ties: the shorter prefix); {} for one step or none. Example: four steps of 10 tokens ->
    {0.1: 1, 0.2: 1, 0.35: 1, 0.5: 2, 0.7: 3, 0.9: 3}."""
    if any(n < 0 for n in step_lengths):
        raise ValueError("step lengths must be >= 0")
    if len(step_lengths) < 2:
        return {}
    cumulative = list(accumulate(step_lengths))
    total = cumulative[-1]
    out = {}
    for r in positions:
        if not 0.0 < r < 1.0:
            raise ValueError(f"prefix positions must lie in (0, 1), got {r}")
        target = r * total
        out[r] = min(range(1, len(step_lengths)), key=lambda k: (abs(cumulative[k - 1] - target), k))
    return out


def solve_rate(verdicts: Sequence[bool]) -> float:
    """q̂_s(x, p) (PUM A.3): the fraction of the K continuations verified correct. Example: 3 of 8 -> 0.375."""
    if not verdicts:
        raise ValueError("a solve rate needs at least one continuation")
    return sum(map(bool, verdicts)) / len(verdicts)


def gain(q_prefix: float, q_empty: float) -> float:
    """ĝ_s(x, p) = q̂_s(x, p) - q̂_s(x, ∅) (PUM eq. 2, A.3). Example: 0.625 - 0.25 = 0.375."""
    for q in (q_prefix, q_empty):
        if not 0.0 <= q <= 1.0:
            raise ValueError(f"solve rates lie in [0, 1], got {q}")
    return q_prefix - q_empty


def normalisation(gains: Sequence[float]) -> tuple[float, float]:
    """(μ_s, σ_s) of one student's gains over the run's prefixes (PUM A.3; σ the population one, ddof 0).
    Example: (0, 0.25, 0.5, -0.25) -> (0.125, 0.2795)."""
    if not gains:
        raise ValueError("normalisation needs at least one gain")
    mu = sum(gains) / len(gains)
    return mu, math.sqrt(sum((g - mu) ** 2 for g in gains) / len(gains))


def normalise(g: float, mu: float, sigma: float, eps: float = 1e-6) -> float:
    """Norm_s(ĝ) = (ĝ - μ_s) / (σ_s + ε) (PUM A.3). Example: ĝ = 0.5, μ = 0.125, σ = 0.25, ε = 0 -> 1.5."""
    return (g - mu) / (sigma + eps)


def capability_weights(baselines: Mapping[str, float], group_weights: Sequence[float] | None) -> dict[str, float]:
    """Per-student weights (PUM sec 4.5, A.3): students sorted by q̂_s(x, ∅) (ties by name) into weak / medium /
    strong thirds (larger groups first), each group's weight shared by its members, rescaled to sum to 1 over the
    groups present; None: uniform. Example: {a: 0.5, b: 0.0, c: 0.25}, (0.6, 0.3, 0.1) -> {b: 0.6, c: 0.3, a: 0.1};
    {a: 0.5, b: 0} -> {b: 2/3, a: 1/3}."""
    names = sorted(baselines, key=lambda s: (baselines[s], s))
    if not names:
        return {}
    if group_weights is None:
        return {s: 1.0 / len(names) for s in names}
    if len(group_weights) != 3 or any(w < 0 for w in group_weights):
        raise ValueError(f"group weights are three numbers >= 0 (weak, medium, strong), got {group_weights}")
    size, extra = divmod(len(names), 3)
    bounds = list(accumulate((size + (k < extra) for k in range(3)), initial=0))
    groups = [names[bounds[k] : bounds[k + 1]] for k in range(3)]
    raw = {s: w / len(g) for g, w in zip(groups, group_weights, strict=True) if g for s in g}
    total = sum(raw.values())
    if total <= 0:
        raise ValueError("the student groups present have zero total weight")
    return {s: w / total for s, w in raw.items()}


def intrinsic_utility(normalised: Mapping[str, float], weights: Mapping[str, float] | None = None) -> float:
    """G_intr(x, p) (PUM eq. 5, A.3): the (weighted) mean of the students' normalised gains; no student: nan.
    Example: {a: 1.5, b: -0.5} -> 0.5; weights {a: 0.25, b: 0.75} -> 0.0."""
    if not normalised:
        return math.nan
    if weights is None:
        return sum(normalised.values()) / len(normalised)
    total = sum(weights.get(s, 0.0) for s in normalised)
    if total <= 0:
        raise ValueError("the students present have zero total weight")
    return sum(weights.get(s, 0.0) * u for s, u in normalised.items()) / total


def effective_students(weights: Sequence[float]) -> float:
    """N_eff (PUM A.4): Kish's (Σw)² / Σw². Example: (1, 1, 1) -> 3; (0.6, 0.3, 0.1) -> 2.174."""
    square = sum(w * w for w in weights)
    return (sum(weights) ** 2) / square if square > 0 else 0.0
