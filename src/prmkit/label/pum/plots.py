"""PUM diagnostics (pum_paper appendix B): figures 6 (gain by cut position) and 7 (student agreement) as PNGs."""

import math
import statistics
from collections.abc import Sequence
from itertools import combinations, groupby
from pathlib import Path
from typing import Any

from prmkit.data.outputs import pyplot, save_figure

__all__ = ["gain_by_position", "plot_agreement", "plot_gain_by_position", "ranks", "spearman", "student_agreement"]


def ranks(values: Sequence[float]) -> list[float]:
    """1-based ranks, ties given their mean rank. Example: (0.5, 0.1, 0.5) -> (2.5, 1, 2.5)."""
    out, done = [0.0] * len(values), 0
    for _, group in groupby(sorted(range(len(values)), key=values.__getitem__), key=values.__getitem__):
        tied = list(group)
        for i in tied:
            out[i] = done + (len(tied) + 1) / 2
        done += len(tied)
    return out


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's rho (Pearson of tie-averaged ranks); nan when a side is constant. Example: (1, 2, 3, 4) vs
    (10, 20, 40, 30) -> 0.8."""
    if len(x) != len(y):
        raise ValueError("spearman needs two sequences of one length")
    try:
        return statistics.correlation(ranks(x), ranks(y))
    except statistics.StatisticsError:  # fewer than two values, or one side constant
        return math.nan


def gain_by_position(rows: Sequence[dict[str, Any]], positions: Sequence[float]) -> dict[str, dict[str, list]]:
    """{"correct"|"incorrect": {curve: [mean normalised gain at each position, or nan]}}; curves are the students
    and "G_intr" (the utility). A prefix counts at every position that snapped to it."""
    students = sorted({s for row in rows for s in row["norm"]})
    out: dict[str, dict[str, list]] = {}
    for label, correct in (("correct", True), ("incorrect", False)):
        mine = [row for row in rows if row["correct"] is correct]
        curves: dict[str, list] = {}
        for curve in [*students, "G_intr"]:
            means = []
            for r in positions:
                vals = [(row["utility"] if curve == "G_intr" else row["norm"].get(curve)) for row in mine
                        if r in row["positions"]]
                vals = [v for v in vals if v is not None and not math.isnan(v)]
                means.append(sum(vals) / len(vals) if vals else math.nan)
            curves[curve] = means
        out[label] = curves
    return out


def student_agreement(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per pair of students: Spearman of their gains over the prefixes both have, their capability gap
    |q̄_a(∅) - q̄_b(∅)| and the prefix count."""
    students = sorted({s for row in rows for s in row["gain"]})
    out = []
    for a, b in combinations(students, 2):
        both = [row for row in rows if a in row["gain"] and b in row["gain"]]
        base = {row["problem_id"]: (row["q0"][a], row["q0"][b]) for row in both}
        gap = abs(sum(x for x, _ in base.values()) - sum(y for _, y in base.values())) / max(1, len(base))
        rho = spearman([r["gain"][a] for r in both], [r["gain"][b] for r in both])
        out.append({"students": [a, b], "spearman": rho, "capability_gap": gap, "prefixes": len(both)})
    return out


def plot_gain_by_position(rows: Sequence[dict[str, Any]], positions: Sequence[float], path: str | Path) -> None:
    """Figure 6 as a PNG at `path`."""
    plt = pyplot()
    curves = gain_by_position(rows, positions)
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), sharey=True)
    for ax, (label, series) in zip(axes, curves.items(), strict=True):
        n = sum(1 for row in rows if row["correct"] is (label == "correct"))
        for name, ys in series.items():
            style = {"lw": 2.5, "color": "black"} if name == "G_intr" else {"lw": 1, "alpha": 0.8}
            ax.plot(positions, ys, marker="o", label=name, **style)
        ax.axhline(0, color="grey", lw=0.5)
        ax.set_title(f"{label} trajectories ({n} prefixes)")
        ax.set_xlabel("relative prefix position")
    axes[0].set_ylabel("mean normalised gain")
    axes[1].legend(fontsize=7)
    fig.tight_layout()
    save_figure(fig, path)


def plot_agreement(rows: Sequence[dict[str, Any]], path: str | Path) -> list[dict[str, Any]]:
    """Figure 7 as a PNG at `path` (nothing written with fewer than two students); returns the points."""
    points = student_agreement(rows)
    if not points:
        return points
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(4.5, 3.6))
    ax.scatter([p["capability_gap"] for p in points], [p["spearman"] for p in points])
    for p in points:
        ax.annotate(" vs ".join(p["students"]), (p["capability_gap"], p["spearman"]), fontsize=6)
    ax.set_xlabel("capability gap |q(∅) difference|")
    ax.set_ylabel("Spearman of prefix gains")
    fig.tight_layout()
    save_figure(fig, path)
    return points
