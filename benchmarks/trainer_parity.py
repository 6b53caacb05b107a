"""Old prmkit training loop vs the `transformers.Trainer` one on the same data and seed: loss curves (PNG), held-out
checks, and the scores both models give to the same candidates (correlation, largest difference).

    python benchmarks/trainer_parity.py --old-log runs/orm_old.log --new-run runs/orm_new \\
        --old-scores runs/scores_old.jsonl --new-scores runs/scores_new.jsonl --plot runs/trainer_parity.png

`--old-log` is the printed log of the old loop (`epoch E step S/T loss L ...` lines); `--new-run` the new
checkpoint directory (its `train_log.json`).
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import numpy as np

STEP = re.compile(r"step (\d+)/\d+ loss ([0-9.]+)")
HELD = re.compile(r"held-out loss ([0-9.]+) accuracy ([0-9.]+)")


def old_curve(log: str) -> tuple[list[float], dict]:
    text = Path(log).read_text(encoding="utf-8")
    losses = [float(m.group(2)) for m in STEP.finditer(text)]
    held = HELD.findall(text)
    return losses, {"loss": float(held[-1][0]), "accuracy": float(held[-1][1])} if held else {}


def new_curve(run: str) -> tuple[list[float], dict]:
    record = json.loads(Path(run, "train_log.json").read_text(encoding="utf-8"))
    losses = [r["loss"] for r in record["log_history"] if "loss" in r]
    return losses, {k: record["history"][-1][k] for k in ("loss", "accuracy")} if record["history"] else {}


def scores(path: str) -> dict[str, float]:
    return {r["id"]: r["score"] for r in map(json.loads, Path(path).read_text(encoding="utf-8").splitlines())}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--old-log", required=True)
    p.add_argument("--new-run", required=True)
    p.add_argument("--old-scores")
    p.add_argument("--new-scores")
    p.add_argument("--plot")
    args = p.parse_args()
    old, old_held = old_curve(args.old_log)
    new, new_held = new_curve(args.new_run)
    n = min(len(old), len(new))
    diff = np.abs(np.array(old[:n]) - np.array(new[:n]))
    out = {"steps": [len(old), len(new)], "old_held_out": old_held, "new_held_out": new_held,
           "loss_max_abs_diff": float(diff.max()) if n else None,
           "loss_mean_abs_diff": float(diff.mean()) if n else None}
    if args.old_scores and args.new_scores:
        a, b = scores(args.old_scores), scores(args.new_scores)
        ids = sorted(set(a) & set(b))
        x, y = np.array([a[i] for i in ids]), np.array([b[i] for i in ids])
        out |= {"scored": len(ids), "score_pearson": float(np.corrcoef(x, y)[0, 1]),
                "score_max_abs_diff": float(np.abs(x - y).max()), "score_mean_abs_diff": float(np.abs(x - y).mean())}
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(6, 3.5))
        ax.plot(range(1, len(old) + 1), old, label="old loop", marker="o", ms=3)
        ax.plot(range(1, len(new) + 1), new, label="transformers.Trainer", marker="x", ms=3)
        ax.set_xlabel("optimiser step")
        ax.set_ylabel("training loss (paper L)")
        ax.legend()
        fig.tight_layout()
        fig.savefig(args.plot, dpi=120)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
