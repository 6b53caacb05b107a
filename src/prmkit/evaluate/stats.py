"""The intervals and percentages every report prints: a 95% percentile interval of bootstrap statistics, the
bootstrap of a mean over problems, draws of whole problems (a problem's items kept together), and a share in percent.

    >>> bootstrap_ci(np.ones(10))
    (1.0, 1.0)
    >>> pct(0.4567), pct(float("nan")), pct_interval(0.5, 0.25, 0.75)
    ('45.7', '-', '50.0 [25.0, 75.0]')
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence

import numpy as np

__all__ = ["bootstrap_ci", "pct", "pct_interval", "percentile_interval", "problem_draws", "signed_points"]


def percentile_interval(stats: Sequence[float] | np.ndarray) -> tuple[float, float]:
    """The 95% percentile interval (2.5th, 97.5th) of bootstrap statistics; (nan, nan) without any."""
    if len(stats) == 0:
        return float("nan"), float("nan")
    lo, hi = np.percentile(stats, [2.5, 97.5])
    return float(lo), float(hi)


def bootstrap_ci(values: np.ndarray, n_boot: int = 1000, seed: int = 0) -> tuple[float, float]:
    """95% percentile interval of the mean, resampling problems (`values`: one per problem)."""
    rng = np.random.default_rng(seed)
    return percentile_interval(values[rng.integers(0, len(values), size=(n_boot, len(values)))].mean(axis=1))


def problem_draws(problems: Sequence[str], n_boot: int, seed: int) -> Iterator[list[int]]:
    """`n_boot` bootstrap draws of the problems (with replacement, as many as there are): per draw, the indices of
    the items (`problems[i]` is item i's problem) of every drawn problem, together and in order."""
    groups: dict[str, list[int]] = {}
    for i, p in enumerate(problems):
        groups.setdefault(p, []).append(i)
    keys = list(groups)
    rng = np.random.default_rng(seed)
    for _ in range(n_boot if keys else 0):
        yield [i for k in rng.integers(0, len(keys), len(keys)) for i in groups[keys[k]]]


def pct(x: float | None) -> str:
    """A share in percent with one decimal; "-" for a missing (None) or undefined (NaN) one."""
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.1f}"


def pct_interval(x: float | None, lo: float | None, hi: float | None) -> str:
    """A share and its interval in percent, as every table prints them: '45.7 [40.1, 51.2]' (`pct` each)."""
    return f"{pct(x)} [{pct(lo)}, {pct(hi)}]"


def signed_points(x: float, lo: float, hi: float, unit: str = "") -> str:
    """A difference of two shares in signed percentage points, one decimal, with its interval: '+1.2 [-0.3, +2.8]'
    (`unit` follows the value: '+1.2 points [-0.3, +2.8]'); "n/a" for an undefined (NaN) one."""
    signed = lambda v: "n/a" if math.isnan(v) else f"{100 * v:+.1f}"  # noqa: E731
    return f"{signed(x)}{unit} [{signed(lo)}, {signed(hi)}]"
