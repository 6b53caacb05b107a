"""The figures of `prmkit rl compare`: compare.png (held-out accuracy) and hacking.png (the reward-hacking checks)."""

from pathlib import Path
from typing import Any

__all__ = ["plot_compare", "plot_hacking"]


def _band(ax: Any, name: str, xs: list[float], rows: list[dict[str, Any]], key: str) -> None:
    line, = ax.plot(xs, [r[key] for r in rows], marker=".", label=name)
    ax.fill_between(xs, [r[f"{key}_min"] for r in rows], [r[f"{key}_max"] for r in rows], color=line.get_color(),
                    alpha=0.15)


def _finish(fig: Any, axes: Any, titles: list[str], xlabels: list[str], path: Path) -> None:
    from prmkit.data.outputs import save_figure

    for ax, title, xlabel in zip(axes, titles, xlabels, strict=True):
        ax.set_title(title, fontsize=9)
        ax.set_xlabel(xlabel)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    save_figure(fig, path)


def plot_compare(curves: dict[str, list[dict[str, Any]]], path: Path) -> None:
    """Held-out accuracy against the step and against generated tokens: mean and seed band per setting."""
    from prmkit.data.outputs import pyplot

    fig, axes = pyplot().subplots(1, 2, figsize=(8, 3.2))
    for name, rows in curves.items():
        _band(axes[0], name, [r["step"] for r in rows], rows, "accuracy")
        if rows and all(r["tokens"] is not None for r in rows):
            _band(axes[1], name, [r["tokens"] for r in rows], rows, "accuracy")
    _finish(fig, axes, ["held-out accuracy (sampled) by step", "held-out accuracy (sampled) by tokens"],
            ["optimiser step", "generated training tokens"], path)


def plot_hacking(curves: dict[str, list[dict[str, Any]]], training: dict[str, dict[str, Any]], path: Path) -> None:
    """Held-out answer rate and steps; training completion length and scorer means against true accuracy."""
    from prmkit.data.outputs import pyplot

    fig, axes = pyplot().subplots(1, 4, figsize=(13, 3.2))
    for name, rows in curves.items():
        _band(axes[0], name, [r["step"] for r in rows], rows, "answered")
        _band(axes[1], name, [r["step"] for r in rows], rows, "steps")
    for name, t in training.items():
        line, = axes[2].plot(t["steps"], _gaps(t["curves"]["length"]), label=name)
        for scorer in t["scorers"]:
            color = axes[3].plot(t["steps"], _gaps(t["curves"][scorer]), color=line.get_color(),
                                 label=f"{name}: {scorer}")[0].get_color()
            axes[3].plot(t["steps"], _gaps(t["curves"]["accuracy"]), color=color, linestyle="--",
                         label=f"{name}: accuracy")
    if any(t["scorers"] for t in training.values()):
        axes[3].legend(fontsize=6)
    _finish(fig, axes, ["held-out: answered", "held-out: steps per completion", "training: completion length",
                        "training: scorer (solid) vs accuracy (dashed)"], ["step"] * 4, path)


def _gaps(values: list[float | None]) -> list[float]:
    return [float("nan") if v is None else v for v in values]
