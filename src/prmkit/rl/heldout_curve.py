"""The held-out curve of an RL run: the policy measured on held-out problems before training, every `heldout_steps`
optimiser steps, and after (`prmkit.rl.heldout.heldout_accuracy`: sampled and greedy accuracy, steps per
completion, answer rate, tokens).

Each measurement is a line of `<output>/heldout.jsonl`, {"step": 10, "accuracy": 0.41, "greedy_accuracy": 0.45,
...}, and the curve is redrawn into `heldout.png` after it; `heldout.json` keeps {"before": ..., "after": ...} (the
step-0 and the last line). A resumed run measures no step twice: the steps already in the file are kept, and the
measurements use the same seed at every step, so two points differ by the policy, not by the draw.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from transformers import TrainerCallback

from prmkit.rl.config import RLConfig
from prmkit.rl.heldout import heldout_accuracy
from prmkit.rl.logs import plot_curves, read_metrics

__all__ = ["HELDOUT_CURVES", "HeldoutCurve"]

# panel title -> the keys of a heldout.jsonl line drawn in it
HELDOUT_CURVES: dict[str, tuple[str, ...]] = {
    "held-out accuracy": ("accuracy", "greedy_accuracy"),
    "answered (extractable answer)": ("answered",),
    "steps per completion": ("steps",),
}


class HeldoutCurve(TrainerCallback):
    """Measure the policy on `problems` at step 0 (`before`), every `config.heldout_steps` steps and at the end
    (`after`); see the module doc. With no problems it measures nothing."""

    def __init__(self, config: RLConfig, problems: list[Any], tokenizer: Any, template: str | None, output: Path,
                 log: Callable[[str], None]):
        self.config, self.problems, self.tokenizer, self.template, self.log = config, problems, tokenizer, template, log
        self.rows_path, self.summary_path, self.plot_path = (output / "heldout.jsonl", output / "heldout.json",
                                                             output / "heldout.png")
        self.rows = {r["step"]: r for r in read_metrics(self.rows_path)}

    @property
    def results(self) -> dict[str, Any]:
        """{"before": the step-0 measurement, "after": the last one, when there are two}, without the step."""
        steps = sorted(self.rows)
        picks = {"before": steps[0], "after": steps[-1]} if len(steps) > 1 else {"before": steps[0]} if steps else {}
        return {when: {k: v for k, v in self.rows[s].items() if k != "step"} for when, s in picks.items()}

    def measure(self, step: int, model: Any) -> None:
        """The measurement at optimiser step `step`, unless the file holds it already."""
        if not self.problems or step in self.rows:
            return
        c = self.config
        row = {"step": step, **heldout_accuracy(model, self.tokenizer, self.problems, c.heldout_samples,
                                                c.temperature, c.top_p, c.max_new_tokens, c.seed, c.chat,
                                                self.template)}
        self.rows[step] = row
        self.rows_path.parent.mkdir(parents=True, exist_ok=True)
        with self.rows_path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(row) + "\n")
        self.summary_path.write_text(json.dumps(self.results, indent=2) + "\n", encoding="utf-8")
        if len(self.rows) > 1:
            plot_curves([self.rows[s] for s in sorted(self.rows)], self.plot_path,
                        f"held-out ({len(self.problems)} problems): {c.reward}, process {c.process or 'none'}",
                        HELDOUT_CURVES)
        self.log(f"held-out at step {step}: accuracy {row['accuracy']:.3f}, greedy {row['greedy_accuracy']:.3f}, "
                 f"answered {row['answered']:.2f}, steps {row['steps']:.2f} ({row['seconds']} s)")

    def on_step_end(self, args: Any, state: Any, control: Any, model: Any = None, **kwargs: Any) -> None:
        every = self.config.heldout_steps
        if every and model is not None and state.global_step % every == 0 and state.is_world_process_zero:
            self.measure(state.global_step, model)
