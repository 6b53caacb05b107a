"""The held-out curve of an RL run: the policy measured before training, every `heldout_steps` optimiser steps and
after, one line of heldout.jsonl each (docs/rl.md, "The held-out curve, and runs side by side")."""

import hashlib
import json
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from transformers import TrainerCallback

from prmkit.data.manifest import settings_diff
from prmkit.rl.config import SETTINGS, RLConfig
from prmkit.rl.data import select_problems
from prmkit.rl.heldout import heldout_accuracy
from prmkit.rl.logs import plot_curves, read_metrics

__all__ = ["BEFORE_SETTINGS", "HELDOUT_CURVES", "HeldoutCurve", "problems_fingerprint", "reused_before"]

# the settings (RLConfig fields) that fix a step-0 measurement, besides the held-out problems themselves
BEFORE_SETTINGS = ("model", "template", "chat", "heldout_samples", "temperature", "top_p", "max_new_tokens", "seed")

# panel title -> the keys of a heldout.jsonl line drawn in it
HELDOUT_CURVES: dict[str, tuple[str, ...]] = {"held-out accuracy": ("accuracy", "greedy_accuracy"),
                                              "answered (extractable answer)": ("answered",),
                                              "steps per completion": ("steps",)}


class HeldoutCurve(TrainerCallback):
    """Measure the policy on `problems` at step 0, every `config.heldout_steps` steps and at the end, into
    heldout.jsonl, heldout.json and heldout.png; a step the file holds is not measured again (no problems: none)."""

    def __init__(self, config: RLConfig, problems: list[Any], tokenizer: Any, template: str | None, output: Path,
                 log: Callable[[str], None]):
        self.config, self.problems, self.tokenizer, self.template, self.log = config, problems, tokenizer, template, log
        self.rows_path, self.summary_path, self.plot_path = (output / f"heldout.{x}" for x in ("jsonl", "json", "png"))
        self.rows = {r["step"]: r for r in read_metrics(self.rows_path)}
        self.fingerprint = problems_fingerprint(problems) if problems else None

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
        if step == 0 and c.heldout_before:
            row = reused_before(c, self.fingerprint, c.heldout_before)
        else:
            row = {"step": step, **heldout_accuracy(model, self.tokenizer, self.problems, c.heldout_samples,
                                                    c.temperature, c.top_p, c.max_new_tokens, c.seed, c.chat,
                                                    self.template), "heldout_sha256": self.fingerprint}
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
                 f"answered {row['answered']:.2f}, steps {row['steps']:.2f} "
                 + (f"(from {row['reused_from']})" if "reused_from" in row else f"({row['seconds']} s)"))

    def on_step_end(self, args: Any, state: Any, control: Any, model: Any = None, **kwargs: Any) -> None:
        every = self.config.heldout_steps
        if every and model is not None and state.global_step % every == 0 and state.is_world_process_zero:
            self.measure(state.global_step, model)


def problems_fingerprint(problems: list[Any]) -> str:
    """The first 16 hex digits of the SHA-256 of the problems' records, in order (one JSON line each)."""
    text = "\n".join(json.dumps(p.to_dict(), sort_keys=True) for p in problems)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def reused_before(config: RLConfig, fingerprint: str | None, run: str) -> dict[str, Any]:
    """The step-0 line of `run`'s heldout.jsonl (marked `reused_from`), when that run measured what `config` would:
    the same `BEFORE_SETTINGS` (from its settings.json) and held-out problems (the line's fingerprint; for a line
    without one, the problems its settings select now). A ValueError names each setting that differs."""
    rows = {r["step"]: r for r in read_metrics(Path(run, "heldout.jsonl"))}
    if 0 not in rows or not Path(run, SETTINGS).is_file():
        raise ValueError(f"--heldout-before {run}: no step-0 held-out measurement there (a prmkit rl grpo output "
                         "with heldout.jsonl and settings.json)")
    other, mine = json.loads(Path(run, SETTINGS).read_text(encoding="utf-8")), asdict(config)
    diff = settings_diff({k: other.get(k) for k in BEFORE_SETTINGS}, {k: mine[k] for k in BEFORE_SETTINGS})
    data = other.get("heldout_data") or other.get("data")
    theirs = rows[0].get("heldout_sha256") or problems_fingerprint(select_problems(data, other.get("heldout_range")))
    if theirs != fingerprint:
        diff.append(f"held-out problems (--heldout-data, --heldout-range): {data} {other.get('heldout_range')} -> "
                    f"{config.heldout_data or config.data} {config.heldout_range} (fingerprint {theirs} -> "
                    f"{fingerprint})")
    if diff:
        raise ValueError(f"--heldout-before {run}: its step-0 measurement was made with other settings "
                         f"({', '.join(diff)}): leave --heldout-before out to measure it")
    return {**rows[0], "reused_from": str(run)}
