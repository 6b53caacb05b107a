"""Training logs of an RL run: every Trainer log line appended to `<output>/metrics.jsonl`, and the curve PNG."""

import json
import os
from pathlib import Path
from typing import Any

from transformers import TrainerCallback

from prmkit.data.jsonl import iter_json
from prmkit.data.outputs import pyplot, save_figure

__all__ = ["CURVES", "MetricsLog", "plot_curves", "read_metrics"]

# panel title -> the metric keys drawn in it
CURVES: dict[str, tuple[str, ...]] = {
    "reward (sum of weighted terms)": ("reward",),
    "accuracy (outcome reward)": ("accuracy",),
    "KL to the reference policy": ("kl",),
    "reasoning steps per completion": ("reasoning_steps",),
    "mean |advantage| per token": ("adv/grpo_abs", "adv/process_abs"),
}


class MetricsLog(TrainerCallback):
    """Append each training log (with its step) to a JSONL file."""

    def __init__(self, path: str | os.PathLike[str]):
        self.path = Path(path)

    def on_log(self, args: Any, state: Any, control: Any, logs: dict[str, float] | None = None, **kwargs: Any):
        if logs and state.is_world_process_zero and "train_runtime" not in logs:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps({"step": state.global_step, **logs}) + "\n")


def read_metrics(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The log lines of `path`, one per step (the last of a step wins), in step order."""
    by_step = {obj["step"]: obj for _, obj in iter_json(path)} if Path(path).exists() else {}
    return [by_step[s] for s in sorted(by_step)]


def plot_curves(rows: list[dict[str, Any]], path: str | os.PathLike[str], title: str = "GRPO",
                curves: dict[str, tuple[str, ...]] | None = None) -> None:
    """One panel per entry of `curves` (default `CURVES`) that the rows have, against the optimiser step."""
    panels = [(t, keys) for t, keys in (curves or CURVES).items() if any(k in r for r in rows for k in keys)]
    fig, axes = pyplot().subplots(1, max(1, len(panels)), figsize=(3.2 * max(1, len(panels)), 3), squeeze=False)
    for ax, (name, keys) in zip(axes[0], panels, strict=False):
        for key in keys:
            ax.plot([r["step"] for r in rows if key in r], [r[key] for r in rows if key in r], marker=".", label=key)
        ax.set_title(name, fontsize=9)
        ax.set_xlabel("step")
        ax.grid(alpha=0.3)
        if len(keys) > 1:
            ax.legend(fontsize=7)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    save_figure(fig, path)
