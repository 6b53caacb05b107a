"""The intervals and percentages every report prints: bootstrap percentile intervals, Student t and Welch intervals
for a handful of seeds, and shares in percent."""

import math
from collections.abc import Iterator, Sequence

import numpy as np

__all__ = ["bootstrap_ci", "pct", "pct_interval", "percentile_interval", "problem_draws", "signed_points",
           "t_interval", "t_quantile", "welch_interval"]


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
    """`n_boot` bootstrap draws of the problems (with replacement): per draw, the indices of the items of every drawn
    problem (`problems[i]` is item i's problem), together and in order."""
    groups: dict[str, list[int]] = {}
    for i, p in enumerate(problems):
        groups.setdefault(p, []).append(i)
    keys = list(groups)
    rng = np.random.default_rng(seed)
    for _ in range(n_boot if keys else 0):
        yield [i for k in rng.integers(0, len(keys), len(keys)) for i in groups[keys[k]]]


def t_quantile(df: float, p: float = 0.975) -> float:
    """The p-quantile of Student's t with `df` (> 0, not necessarily whole) degrees of freedom, p in [0.5, 1), without
    scipy (Simpson's rule and bisection). t_quantile(2) = 4.303, t_quantile(4) = 2.776, t_quantile(1e9) = 1.960."""
    if df <= 0 or not 0.5 <= p < 1:
        raise ValueError(f"t_quantile needs df > 0 and 0.5 <= p < 1 (got df={df}, p={p})")
    log_c = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)

    def cdf(t: float) -> float:
        x = np.linspace(0.0, t, 4001)
        f = np.exp(log_c - (df + 1) / 2 * np.log1p(x * x / df))
        return 0.5 + (t / 12000) * float(f[0] + f[-1] + 4 * f[1:-1:2].sum() + 2 * f[2:-1:2].sum())

    lo, hi = 0.0, 1.0
    while cdf(hi) < p:
        lo, hi = hi, 2 * hi
    for _ in range(50):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if cdf(mid) < p else (lo, mid)
    return (lo + hi) / 2


def t_interval(values: Sequence[float]) -> tuple[float, float, float]:
    """(mean, low, high): the 95% Student t interval of the mean (n - 1 df); (mean, nan, nan) below two values.
    Example: 1, 2, 6 -> mean 3, sd 2.646, half-width 4.303 x 2.646 / sqrt(3) = 6.572 -> (3, -3.572, 9.572)."""
    x = np.asarray(values, dtype=float)
    mean = float(x.mean()) if len(x) else float("nan")
    if len(x) < 2:
        return mean, float("nan"), float("nan")
    half = t_quantile(len(x) - 1) * float(x.std(ddof=1)) / math.sqrt(len(x))
    return mean, mean - half, mean + half


def welch_interval(a: Sequence[float], b: Sequence[float]) -> tuple[float, float, float]:
    """(mean(a) - mean(b), low, high): Welch's 95% t interval of a difference of two unpaired means,
    df = (va/na + vb/nb)^2 / ((va/na)^2/(na-1) + (vb/nb)^2/(nb-1)); (difference, nan, nan) unless both have two
    values. Example: a = 1, 2, 3, b = 0, 0, 3: se = 1.155, df = 3.2, t = 3.073 -> (1, -2.55, 4.55)."""
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    diff = float(x.mean() - y.mean()) if len(x) and len(y) else float("nan")
    if len(x) < 2 or len(y) < 2:
        return diff, float("nan"), float("nan")
    va, vb = x.var(ddof=1) / len(x), y.var(ddof=1) / len(y)
    if va + vb == 0:
        return diff, diff, diff
    df = (va + vb) ** 2 / (va**2 / (len(x) - 1) + vb**2 / (len(y) - 1))
    half = t_quantile(float(df)) * math.sqrt(va + vb)
    return diff, diff - half, diff + half


def pct(x: float | None) -> str:
    """A share in percent with one decimal; "-" for a missing (None) or undefined (NaN) one."""
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.1f}"


def pct_interval(x: float | None, lo: float | None, hi: float | None) -> str:
    """A share and its interval in percent, as every table prints them: '45.7 [40.1, 51.2]' (`pct` each)."""
    return f"{pct(x)} [{pct(lo)}, {pct(hi)}]"


def signed_points(x: float, lo: float, hi: float, unit: str = "") -> str:
    """Signed points of a difference of shares with its interval: '+1.2 [-0.3, +2.8]' (`unit` after it); NaN: "n/a"."""
    signed = lambda v: "n/a" if math.isnan(v) else f"{100 * v:+.1f}"  # noqa: E731
    return f"{signed(x)}{unit} [{signed(lo)}, {signed(hi)}]"
