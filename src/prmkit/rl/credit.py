"""Min-form credit (PURE: Cheng et al., NeurIPS 2025, arXiv 2504.15275, sec 3) and progress (PAV: Setlur et al., ICLR
2025, arXiv 2410.08146, sec 3) as per-segment process advantages for GRPO, pure functions over lists."""

import math
from itertools import accumulate

__all__ = ["PURE_TEMPERATURE", "min_form_group", "min_form_returns", "progress_advantages", "progress_group",
           "step_rewards"]

PURE_TEMPERATURE = 0.1  # PURE's released default `credit_assignment: 0.1` (verl branch, ppo_trainer.yaml)


def step_rewards(scores: list[float]) -> list[float]:
    """PURE's step reward p(right) - p(wrong) = 2s - 1 of step scores s in [0, 1]: (0.9, 0.2) -> (0.8, -0.6)."""
    return [2 * s - 1 for s in scores]


def min_form_returns(rewards: list[float], temperature: float = 0.0) -> list[float]:
    """PURE's min-form return of each step from the step rewards r_1..r_n (arXiv 2504.15275, sec 3).

    temperature 0 (strict):  G_t = min_{j >= t} r_j
        r = (0.8, -0.6, 0.4) -> G = (-0.6, -0.6, 0.4)
    temperature T > 0 (PURE's released default T = 0.1):  w = softmax(-r / T) over all steps, G_t = sum_{j >= t} w_j r_j
        r = (1, -1), T = 1 -> w = (0.1192, 0.8808) -> G = (-0.7616, -0.8808)"""
    if not rewards:
        return []
    if temperature <= 0:
        return list(accumulate(reversed(rewards), min))[::-1]
    top = max(-r / temperature for r in rewards)  # shift for a stable softmax
    exps = [math.exp(-r / temperature - top) for r in rewards]
    weighted = [e / sum(exps) * r for e, r in zip(exps, rewards, strict=True)]
    return [sum(weighted[t:]) for t in range(len(weighted))]


def min_form_group(group: list[list[float]], temperature: float = 0.0) -> list[list[float]]:
    """Min-form advantages of a prompt's group from each completion's segment scores: A_t = G_t - b, G from
    `min_form_returns(step_rewards(scores), temperature)`, b = the group mean of G_1 (prmkit's baseline, not PURE's).
    Strict: scores (0.9, 0.2, 0.7) and (1.0,) -> G (-0.6, -0.6, 0.4) and (1.0,), b = 0.2 -> ((-0.8, -0.8, 0.2),
    (0.8,)); a completion without steps has no segments."""
    returns = [min_form_returns(step_rewards(scores), temperature) for scores in group]
    firsts = [g[0] for g in returns if g]
    baseline = sum(firsts) / len(firsts) if firsts else 0.0
    return [[g - baseline for g in gs] for gs in returns]


def progress_advantages(values: list[float], initial: float) -> list[float]:
    """PAV progress (arXiv 2410.08146, sec 3): A_t = Q(p_t) - Q(p_{t-1}) for the prefix values Q(p_1..p_n), with
    Q(p_0) = `initial`. The oracle's Q = (1, 1, 0, 0), Q(p_0) = 0.75 -> (0.25, 0, -1, 0)."""
    return [q - prev for prev, q in zip([initial, *values], values, strict=False)]


def progress_group(group: list[list[float]]) -> list[list[float]]:
    """Progress of each completion of a prompt's group, Q(p_0) = the group mean of Q(p_1) (prmkit's choice).
    Q (1, 1, 0) and (0, 0) -> Q(p_0) = 0.5 -> ((0.5, 0, -1), (-0.5, 0))."""
    firsts = [values[0] for values in group if values]
    initial = sum(firsts) / len(firsts) if firsts else 0.0
    return [progress_advantages(values, initial) for values in group]
