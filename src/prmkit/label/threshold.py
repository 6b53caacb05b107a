"""Choosing the label threshold tau by balanced accuracy (MCNIG paper sec 3.2.3 and 4.3); soft and 3-class labels."""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from prmkit.data.outputs import pyplot, save_figure

__all__ = ["Sweep", "balanced_accuracy", "cot_scores", "missing_classes", "plot_sweep", "soft_labels",
           "sweep_threshold", "three_class_labels"]


def cot_scores(scores: Sequence[Sequence[float]], exclude_final: bool = True) -> np.ndarray:
    """The CoT-level score: min over the steps, the final one excluded by default (MCNIG sec 4.3: it states the
    answer); all labels 1 <=> min > tau; +inf if none. Example: [[1, 5], [-2, 0.5]] -> [1, -2]."""
    return np.asarray([min(s[:-1] if exclude_final else s, default=np.inf) for s in scores], dtype=float)


def balanced_accuracy(pred: Sequence[bool] | np.ndarray, truth: Sequence[bool] | np.ndarray,
                      absent: float = 0.5) -> float:
    """(TP/(TP+FN) + TN/(TN+FP)) / 2; an absent class contributes `absent` (0.5: chance; NaN: the whole undefined)."""
    pred, truth = np.asarray(pred, dtype=bool), np.asarray(truth, dtype=bool)
    pos, neg = truth.sum(), (~truth).sum()
    tpr = (pred & truth).sum() / pos if pos else absent
    tnr = (~pred & ~truth).sum() / neg if neg else absent
    return float((tpr + tnr) / 2)


def missing_classes(truth: Sequence[bool]) -> list[str]:
    """The classes ("correct", "incorrect") with no CoT in `truth`: each one's rate counts 0.5 in
    `balanced_accuracy`, so a file without a correct CoT scores 0.75 by separating nothing.
    Example: [False, False] -> ["correct"]; [True, False] -> []."""
    truth = np.asarray(truth, dtype=bool)
    return [name for name, n in (("correct", truth.sum()), ("incorrect", (~truth).sum())) if not n]


@dataclass
class Sweep:
    taus: np.ndarray
    accuracies: np.ndarray
    tau: float
    balanced_accuracy: float


def sweep_threshold(scores: Sequence[Sequence[float]], correct: Sequence[bool], exclude_final: bool = True) -> Sweep:
    """Try every tau between consecutive distinct CoT scores; the best maximises balanced accuracy against
    `correct` (MCNIG sec 3.2.3)."""
    cs = cot_scores(scores, exclude_final)
    truth = np.asarray(correct, dtype=bool)
    finite = np.unique(cs[np.isfinite(cs)])
    mids = (finite[:-1] + finite[1:]) / 2
    taus = np.concatenate([[finite[0] - 1.0], mids, [finite[-1] + 1.0]]) if finite.size else np.array([0.0])
    accs = np.array([balanced_accuracy(cs > t, truth) for t in taus])
    best = int(np.argmax(accs))
    return Sweep(taus, accs, float(taus[best]), float(accs[best]))


def plot_sweep(sweeps: dict[str, Sweep], path: str, title: str = "") -> None:
    """Balanced accuracy against tau, one line per sweep, the chosen tau marked."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    for name, sw in sweeps.items():
        (line,) = ax.plot(sw.taus, sw.accuracies, label=f"{name}: tau={sw.tau:.3g}, bacc={sw.balanced_accuracy:.3f}")
        ax.axvline(sw.tau, color=line.get_color(), ls=":", lw=1)
    ax.axhline(0.5, color="grey", lw=0.5)
    ax.set_xlabel("threshold tau (step label = score > tau)")
    ax.set_ylabel("balanced accuracy (CoT level)")
    ax.set_title(title or "threshold sweep")
    ax.legend(fontsize=8)
    fig.tight_layout()
    save_figure(fig, path)


def three_class_labels(scores: Sequence[float], tau: float, band: float) -> list[int]:
    """Step labels -1/0/+1 for a 3-class PRM (PSPO paper, "Step Labelling Criteria"; the band is prmkit's stand-in
    for its human labels): +1 if score > tau + band, -1 if < tau - band, else 0.
    Example: tau = 0, band = 0.5: [2, 0.2, -0.4, -3] -> [1, 0, 0, -1]."""
    if band < 0:
        raise ValueError(f"the neutral band must be >= 0, got {band}")
    return [1 if s > tau + band else -1 if s < tau - band else 0 for s in scores]


def soft_labels(scores: Sequence[float], tau: float) -> list[float]:
    """sigmoid(score - tau) (prmkit's `--soft`, not in the papers). Example: tau = 1: [1, 3] -> [0.5, 0.881]."""
    return [float(1.0 / (1.0 + np.exp(-(s - tau)))) for s in scores]
