"""Learning curves of `prmkit train` runs: training loss per step and held-out loss / accuracy per check, one PNG.

Each `--run NAME=DIR[@MAJORITY]` is a `prmkit train` output directory (its `train_log.json`); MAJORITY, when given,
is the held-out majority-class rate, drawn as a dotted line in the run's colour on the accuracy panel (a model that
predicts the class prior sits on it). The training loss is smoothed over `--window` steps. Also printed as a table.

    python benchmarks/learning_curves.py --plot docs/learning_curves.png \\
        --run "demo, CPU recipe=runs/prm@0.75" --run "synthetic, 270 steps=runs/synth_prm@0.672"
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np


def read_run(spec: str) -> tuple[str, dict, float | None]:
    name, _, rest = spec.partition("=")
    path, _, majority = rest.partition("@")
    record = json.loads(Path(path, "train_log.json").read_text(encoding="utf-8"))
    return name, record, float(majority) if majority else None


def smooth(values: list[float], window: int) -> np.ndarray:
    if len(values) < window or window <= 1:
        return np.asarray(values, dtype=float)
    return np.convolve(values, np.ones(window) / window, mode="valid")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--run", action="append", required=True, help="NAME=DIR[@MAJORITY] (repeatable)")
    p.add_argument("--plot", required=True, help="PNG to write")
    p.add_argument("--window", type=int, default=10, help="training-loss moving average, in steps")
    args = p.parse_args()

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax_train, ax_loss, ax_acc) = plt.subplots(1, 3, figsize=(15, 4.2))
    print("| run | steps | held-out checks: epoch -> loss / accuracy | majority |")
    print("|---|---:|---|---:|")
    for k, spec in enumerate(args.run):
        name, record, majority = read_run(spec)
        colour = f"C{k}"
        train = [r for r in record["log_history"] if "loss" in r and "eval_loss" not in r]
        if train:
            steps = [r["step"] for r in train]
            curve = smooth([r["loss"] for r in train], args.window)
            ax_train.plot(steps[len(steps) - len(curve):], curve, color=colour, label=name)
        held = record["history"]
        if held:
            epochs = [h["epoch"] for h in held]
            ax_loss.plot(epochs, [h["loss"] for h in held], "o-", color=colour, label=name)
            ax_acc.plot(epochs, [h["accuracy"] for h in held], "o-", color=colour, label=name)
        if majority is not None:
            ax_acc.axhline(majority, color=colour, linestyle=":", linewidth=1)
        checks = ", ".join(f"{h['epoch']:.0f} -> {h['loss']:.3f} / {h['accuracy']:.3f}" for h in held)
        print(f"| {name} | {len(train)} | {checks or '-'} | {majority if majority is not None else '-'} |")
    ax_train.set(title=f"training loss ({args.window}-step mean)", xlabel="optimiser step", ylabel="loss (nats)")
    ax_loss.set(title="held-out loss", xlabel="epoch", ylabel="loss (nats)")
    ax_acc.set(title="held-out step accuracy (dotted: majority rate)", xlabel="epoch", ylabel="accuracy")
    for ax in (ax_train, ax_loss, ax_acc):
        ax.grid(alpha=0.3)
    ax_train.legend(fontsize=7, loc="lower left")
    fig.tight_layout()
    fig.savefig(args.plot, dpi=110)
    print(f"wrote {args.plot}")


if __name__ == "__main__":
    main()
