"""The Trainer's progress bar with the last step's loss beside it, replacing `transformers.ProgressCallback`."""

import os
from typing import Any

from tqdm.auto import tqdm
from transformers.trainer_callback import ProgressCallback
from transformers.trainer_utils import has_length

__all__ = ["LossProgress"]


def _bar(**kwargs: Any) -> Any:
    """A bar, off when TQDM_DISABLE is set now (tqdm itself reads it only once, on import)."""
    return tqdm(dynamic_ncols=True, **kwargs, **({"disable": True} if os.environ.get("TQDM_DISABLE") else {}))


class LossProgress(ProgressCallback):
    """tqdm bar: `step/total [time] loss=..., lr=...`; a held-out check is one line above the bar (quiet or not)."""

    def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        if state.is_world_process_zero:
            self.training_bar = _bar(total=state.max_steps)
        self.current_step = 0

    def on_prediction_step(self, args: Any, state: Any, control: Any, eval_dataloader: Any = None,
                           **kwargs: Any) -> None:
        if state.is_world_process_zero and has_length(eval_dataloader):
            if self.prediction_bar is None:
                self.prediction_bar = _bar(total=len(eval_dataloader), leave=self.training_bar is None)
            self.prediction_bar.update(1)

    def on_log(self, args: Any, state: Any, control: Any, logs: dict | None = None, **kwargs: Any) -> None:
        if not state.is_world_process_zero or self.training_bar is None or not logs:
            return
        if "loss" in logs:
            self.training_bar.set_postfix(loss=f"{logs['loss']:.4f}", lr=f"{logs.get('learning_rate', 0):.2g}")
        elif "eval_loss" in logs:
            self.training_bar.write(f"step {state.global_step} (epoch {state.epoch:.2f}) held-out loss "
                                    f"{logs['eval_loss']:.4f} accuracy {logs['eval_accuracy']:.3f} "
                                    f"({logs['eval_targets']} targets)")
