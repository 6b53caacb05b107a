"""The per-setting figures of `prmkit rl compare` that are not a bootstrap: the difference from the baseline with the
seed as the unit, and the steps to reach the baseline's final accuracy."""

from collections.abc import Sequence
from typing import Any

from prmkit.evaluate.stats import t_interval, welch_interval

__all__ = ["seed_interval", "steps_to_reach"]


def seed_interval(accuracy: Sequence[float], seeds: Sequence[int | None], base_accuracy: Sequence[float],
                  base_seeds: Sequence[int | None]) -> dict[str, Any]:
    """{"mean", "low", "high", "method"}: mean(setting) - mean(baseline) with a 95% t interval, the seed as the unit:
    paired by seed when both ran the same distinct, known seeds (they share held-out draws), else Welch's. Example:
    0.50, 0.46, 0.52 against 0.45, 0.44, 0.43 at seeds 0, 1, 2: differences 0.05, 0.02, 0.09 -> 0.0533
    [-0.0339, 0.1405], "paired by seed (t, 2 df)"."""
    known = None not in seeds and None not in base_seeds and len(set(seeds)) == len(seeds)
    if known and sorted(seeds) == sorted(base_seeds) and len(seeds) == len(base_seeds):
        by_seed = dict(zip(base_seeds, base_accuracy, strict=True))
        mean, low, high = t_interval([a - by_seed[s] for a, s in zip(accuracy, seeds, strict=True)])
        return {"mean": mean, "low": low, "high": high, "method": f"paired by seed (t, {len(seeds) - 1} df)"}
    mean, low, high = welch_interval(accuracy, base_accuracy)
    return {"mean": mean, "low": low, "high": high, "method": "Welch (other seeds)"}


def steps_to_reach(steps: Sequence[float], accuracy: Sequence[float], target: float) -> float | None:
    """PAV's sample-efficiency measure (Setlur et al., ICLR 2025, sec 5): the step (x value) at which the curve first
    reaches `target`, interpolated linearly from the point before; None when it never does. Example: steps 0, 20, 40,
    accuracy 0.40, 0.44, 0.50, target 0.47 -> 20 + (0.47 - 0.44) / (0.50 - 0.44) x 20 = 30."""
    for i, (x, a) in enumerate(zip(steps, accuracy, strict=True)):
        if a >= target:
            if i == 0:
                return float(x)
            x0, a0 = steps[i - 1], accuracy[i - 1]
            return float(x0 + (target - a0) / (a - a0) * (x - x0))
    return None
