"""The wiring of `prmkit train`: examples -> fresh reward model -> trained checkpoint directory.

Writes `<output>/` (HF weights + tokenizer + prmkit_reward.json) and `<output>/train_log.json` with the
configs, the per-epoch history (loss, held-out check) and the wall-clock training time.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

import torch

from prmkit.data.outputs import check_output_path
from prmkit.models.reward import RewardModel, RewardModelConfig
from prmkit.train.config import TrainConfig
from prmkit.train.data import Example
from prmkit.train.trainer import RewardModelTrainer, encode_examples

__all__ = ["default_held_out", "split_held_out", "train_reward_model"]


def default_held_out(examples: list[Example], fraction: float = 0.05) -> int:
    """Problems to hold out when the user says nothing: 5% of them, at least 1 when there are 2 or more."""
    problems = len({ex.problem_id for ex in examples})
    return 0 if problems < 2 else max(1, round(fraction * problems))


def split_held_out(examples: list[Example], problems: int) -> tuple[list[Example], list[Example]]:
    """The traces of the last `problems` problems (file order) become the held-out check."""
    order = list(dict.fromkeys(ex.problem_id for ex in examples))
    held = set(order[len(order) - problems:]) if problems > 0 else set()
    return [ex for ex in examples if ex.problem_id not in held], [ex for ex in examples if ex.problem_id in held]


def train_reward_model(examples: list[Example], model_config: RewardModelConfig, train_config: TrainConfig,
                       output: str | os.PathLike[str], held_out_problems: int = 0,
                       log: Callable[[str], None] = print) -> dict:
    """Train on `examples`, check on the held-out problems after each epoch, save to `output`."""
    check_output_path(output, directory=True)  # before any model work: a bad path must not lose the training
    train, held = split_held_out(examples, held_out_problems)
    torch.manual_seed(train_config.seed)  # the rows of added reserved tokens are drawn at random
    prm = RewardModel.from_base(train_config.model, model_config)
    if train_config.keep_layers:
        prm.truncate_layers(train_config.keep_layers)
    trainer = RewardModelTrainer(prm, train_config, log)
    enc_train, skipped = encode_examples(prm, train, train_config.max_length)
    enc_held, _ = encode_examples(prm, held, train_config.max_length)
    n_targets = sum(len(e.positions) for e in enc_train)
    log(f"{model_config.kind}: {len(enc_train)} traces ({skipped} skipped as too long), {n_targets} targets, "
        f"{sum(len(e.ids) for e in enc_train)} tokens; held-out {len(enc_held)} traces; "
        f"{sum(p.numel() for p in trainer.params)} trainable parameters")
    start = time.time()
    history = trainer.train(enc_train, enc_held)
    seconds = time.time() - start
    prm.save_pretrained(output)
    record = {"model_config": model_config.to_dict(), "train_config": asdict(train_config), "history": history,
              "train_seconds": seconds, "train_traces": len(enc_train), "skipped": skipped}
    Path(output, "train_log.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    log(f"saved {output} after {seconds:.0f}s of training")
    return record
