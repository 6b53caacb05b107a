"""Accuracy-vs-K plot of best-of-K rows (one line per method, the bootstrap interval shaded), as PNG."""

from __future__ import annotations

import os

from prmkit.data.outputs import save_figure

__all__ = ["plot_bok"]


def plot_bok(rows: list[dict], path: str | os.PathLike[str], title: str = "Best-of-K") -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    for method in dict.fromkeys(r["method"] for r in rows):
        pts = sorted((r for r in rows if r["method"] == method), key=lambda r: r["k"])
        ks = [r["k"] for r in pts]
        ax.plot(ks, [100 * r["mean"] for r in pts], marker="o", label=method)
        ax.fill_between(ks, [100 * r["lo"] for r in pts], [100 * r["hi"] for r in pts], alpha=0.15)
    ax.set_xscale("log", base=2)
    ax.set_xticks(sorted({r["k"] for r in rows}), [str(k) for k in sorted({r["k"] for r in rows})])
    ax.set_xlabel("K (candidates)")
    ax.set_ylabel("accuracy (%)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    save_figure(fig, path)
    plt.close(fig)
