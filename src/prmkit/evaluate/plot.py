"""PNG plots: accuracy against K of best-of-K rows, and the payoff plots (each row minus majority voting)."""

import os

from prmkit.data.outputs import pyplot, save_figure

__all__ = ["plot_bok", "plot_payoff", "plot_payoff_scale", "plot_payoff_tokens"]


def _errors(mean: list[float], lo: list[float], hi: list[float]) -> list[list[float]]:
    """Asymmetric error bars for `errorbar`: the distances below and above each mean."""
    return [[m - a for m, a in zip(mean, lo, strict=True)], [b - m for m, b in zip(mean, hi, strict=True)]]


def _finish(fig, ax, title: str, path: str | os.PathLike[str]) -> None:
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    save_figure(fig, path)


def plot_bok(rows: list[dict], path: str | os.PathLike[str], title: str = "Best-of-K") -> None:
    fig, ax = pyplot().subplots(figsize=(6, 4))
    for method in dict.fromkeys(r["method"] for r in rows):
        pts = sorted((r for r in rows if r["method"] == method), key=lambda r: r["k"])
        ks = [r["k"] for r in pts]
        ax.plot(ks, [100 * r["mean"] for r in pts], marker="o", label=method)
        ax.fill_between(ks, [100 * r["lo"] for r in pts], [100 * r["hi"] for r in pts], alpha=0.15)
    ax.set_xscale("log", base=2)
    ax.set_xticks(sorted({r["k"] for r in rows}), [str(k) for k in sorted({r["k"] for r in rows})])
    ax.set_xlabel("K (candidates)")
    ax.set_ylabel("accuracy (%)")
    _finish(fig, ax, title, path)


def plot_payoff_scale(costs: list[dict], path: str | os.PathLike[str], title: str) -> None:
    """Payoff rows' gain over majority voting against training problems (log), a line per labels kind."""
    fig, ax = pyplot().subplots(figsize=(7, 4.5))
    for i, labels in enumerate(dict.fromkeys(c["labels"] for c in costs)):
        rows = sorted((c for c in costs if c["labels"] == labels and c["train_problems"]),
                      key=lambda c: c["train_problems"])
        xs = [c["train_problems"] * (1 + 0.03 * i) for c in rows]  # a small offset keeps the bars apart
        mean, lo, hi = ([100 * c["best_minus_majority"][j] for c in rows] for j in range(3))
        if rows:
            ax.errorbar(xs, mean, yerr=_errors(mean, lo, hi), fmt="o-", capsize=3, color=f"C{i}", label=labels)
        for c in (c for c in costs if c["labels"] == labels and c["train_problems"] == 0):
            ax.axhline(100 * c["best_minus_majority"][0], color=f"C{i}", ls="--", lw=1, label=c["labeler"])
    ax.axhline(0, color="grey", lw=1)
    ax.set_xscale("log")
    ax.set_xlabel("training problems")
    ax.set_ylabel("best-of-K minus majority voting (points, 95% interval)")
    _finish(fig, ax, title, path)


def plot_payoff_tokens(costs: list[dict], path: str | os.PathLike[str], title: str) -> None:
    """Payoff rows' gains over majority voting against their label tokens (symlog), each point named by its row."""
    fig, ax = pyplot().subplots(figsize=(7, 4.5))
    for key, colour, name, shift in (("best_minus_majority", "C0", "best-of-K", 0.97),
                                     ("weighted_minus_majority", "C1", "weighted vote", 1.03)):
        xs = [c["label_tokens"] * shift or 1e4 * (shift - 1) for c in costs]  # apart, also at 0 (linear there)
        mean, lo, hi = ([100 * c[key][j] for c in costs] for j in range(3))
        ax.errorbar(xs, mean, yerr=_errors(mean, lo, hi), fmt="o", capsize=3, color=colour, label=name)
        if key == "weighted_minus_majority":
            for i, (c, x, m) in enumerate(zip(costs, xs, mean, strict=True)):
                ax.annotate(c["labeler"], (x, m), textcoords="offset points", xytext=(5, _label_offset(i, xs, mean)),
                            fontsize=7)
    ax.axhline(0, color="grey", lw=1)
    ax.set_xscale("symlog", linthresh=1e4)
    ax.set_xlim(-3e3, 3 * max(c["label_tokens"] for c in costs) + 1e4)
    ax.set_xlabel("label tokens (read + generated; 0: the checker's or the answers' labels)")
    ax.set_ylabel("minus majority voting (points, 95% interval)")
    _finish(fig, ax, title, path)


def _label_offset(i: int, xs: list[float], ys: list[float]) -> float:
    """Vertical offset (points) of point i's name: names of points at about one x (within 10%) do not overprint."""
    near = sorted((j for j, x in enumerate(xs) if abs(x - xs[i]) <= 0.1 * max(abs(xs[i]), 1e3)), key=lambda j: -ys[j])
    return 9 * (len(near) - 1) / 2 - 9 * near.index(i) - 3


def plot_payoff(costs: list[dict], path: str | os.PathLike[str], title: str) -> None:
    """A line per payoff row: best-of-K and weighted voting minus majority voting, with their intervals."""
    fig, ax = pyplot().subplots(figsize=(7, 0.6 * len(costs) + 1.5))
    for i, c in enumerate(costs):
        for offset, key, colour, name in ((-0.12, "best_minus_majority", "C0", "best-of-K"),
                                          (0.12, "weighted_minus_majority", "C1", "weighted vote")):
            mean, lo, hi = (100 * v for v in c[key])
            ax.errorbar(mean, i + offset, xerr=_errors([mean], [lo], [hi]), fmt="o", color=colour, capsize=3,
                        label=name if i == 0 else None)
    ax.axvline(0, color="grey", lw=1)
    ax.set_yticks(range(len(costs)), [f"{c['labeler']} ({c['label_tokens'] / 1e6:.2f}M label tokens)" for c in costs])
    ax.set_xlabel("accuracy minus majority voting (points, 95% interval)")
    fig.suptitle(title)  # over the figure: the long labeler names push the axes right, an axes title off the edge
    ax.grid(alpha=0.3, axis="x")
    ax.legend(fontsize=8)
    fig.tight_layout()
    save_figure(fig, path)
