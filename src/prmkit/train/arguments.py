"""`TrainConfig` -> `transformers.TrainingArguments`: the one place where prmkit's names meet the Trainer's."""

import importlib.util
import math
import os
from typing import Any

import yaml

from prmkit.train.config import TrainConfig

__all__ = ["accumulation_steps", "report_to", "trainer_overrides", "training_arguments"]

# TrainConfig field -> TrainingArguments keyword, for the fields that map one to one
RENAMED = {"lr": "learning_rate", "weight_decay": "weight_decay", "grad_clip": "max_grad_norm", "seed": "seed",
           "warmup": "warmup_steps", "logging_steps": "logging_steps", "bf16": "bf16",
           "eval_strategy": "eval_strategy", "save_strategy": "save_strategy"}


def accumulation_steps(config: TrainConfig) -> int:
    """Micro-batches per optimiser step: ceil(batch_traces / micro_batch)."""
    return max(1, math.ceil(config.batch_traces / max(1, config.micro_batch)))


def report_to(value: str) -> list[str]:
    """`auto` -> tensorboard when it is installed, else nothing; `none` -> nothing; else the comma list."""
    if value == "auto":
        return ["tensorboard"] if importlib.util.find_spec("tensorboard") else []
    return [] if value in ("", "none") else [v.strip() for v in value.split(",")]


def trainer_overrides(pairs: list[str]) -> dict[str, Any]:
    """`--trainer-args KEY=VALUE ...` as keyword arguments, each VALUE read as YAML ("a=true" -> {"a": True})."""
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise ValueError(f"trainer_args: expected KEY=VALUE, got {pair!r}")
        out[key.strip()] = yaml.safe_load(value)
    return out


def training_arguments(config: TrainConfig, output: str | os.PathLike[str], max_steps: int, accumulation: int,
                       evaluate: bool) -> Any:
    """The TrainingArguments of a run writing checkpoints under `output` (no held-out set: `evaluate=False`)."""
    from transformers import TrainingArguments

    kwargs: dict[str, Any] = {hf: getattr(config, name) for name, hf in RENAMED.items()}
    if not evaluate:
        kwargs["eval_strategy"] = "no"
    kwargs.update(output_dir=str(output), max_steps=max_steps, gradient_accumulation_steps=accumulation,
                  eval_steps=config.eval_steps or None, save_steps=config.save_steps or 500,
                  save_total_limit=config.save_total_limit or None, report_to=report_to(config.report_to),
                  disable_tqdm=False, remove_unused_columns=False, dataloader_pin_memory=False,
                  per_device_eval_batch_size=config.micro_batch)
    return TrainingArguments(**(kwargs | trainer_overrides(config.trainer_args)))
