"""The Trainer's progress bar with the loss of the last step beside it (from the first step on), and the held-out
check written under it; replaces `transformers.ProgressCallback`, which prints every log as a dict."""

from __future__ import annotations

from typing import Any

from transformers.trainer_callback import ProgressCallback

__all__ = ["LossProgress"]


class LossProgress(ProgressCallback):
    """tqdm bar: `step/total [time] loss=..., lr=...`; a held-out check is one line above the bar."""

    def on_log(self, args: Any, state: Any, control: Any, logs: dict | None = None, **kwargs: Any) -> None:
        if not state.is_world_process_zero or self.training_bar is None or not logs:
            return
        if "loss" in logs:
            self.training_bar.set_postfix(loss=f"{logs['loss']:.4f}", lr=f"{logs.get('learning_rate', 0):.2g}")
        elif "eval_loss" in logs:
            self.training_bar.write(f"step {state.global_step} (epoch {state.epoch:.2f}) held-out loss "
                                    f"{logs['eval_loss']:.4f} accuracy {logs['eval_accuracy']:.3f} "
                                    f"({logs['eval_targets']} targets)")
