"""The wiring of `prmkit train`: examples -> fresh reward model -> `transformers.Trainer` -> checkpoint directory."""

import json
import os
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

import torch

from prmkit.data.outputs import check_output_path
from prmkit.models.reward import TRAIN_LOG, RewardModel, RewardModelConfig
from prmkit.train.arguments import accumulation_steps, training_arguments
from prmkit.train.batches import Encoded, PlannedBatchSampler, ProblemBatchSampler, encode_examples
from prmkit.train.config import TrainConfig
from prmkit.train.data import Example
from prmkit.train.progress import LossProgress
from prmkit.train.trainer import RewardModelTrainer, prepare_parameters, trainable_parameters

__all__ = ["build_trainer", "default_held_out", "last_checkpoint", "setup_trainer", "split_held_out",
           "train_reward_model"]


def default_held_out(examples: list[Any], fraction: float = 0.05) -> int:
    """Problems to hold out when the user says nothing: 5% of them, at least 1 when there are 2 or more."""
    problems = len({ex.problem_id for ex in examples})
    return 0 if problems < 2 else max(1, round(fraction * problems))


def split_held_out(examples: list[Any], problems: int) -> tuple[list[Any], list[Any]]:
    """The traces of the last `problems` problems (file order) become the held-out check."""
    order = list(dict.fromkeys(ex.problem_id for ex in examples))
    held = set(order[len(order) - problems:]) if problems > 0 else set()
    return [ex for ex in examples if ex.problem_id not in held], [ex for ex in examples if ex.problem_id in held]


def setup_trainer(prm: RewardModel, train: list[Any], held: list[Any], config: TrainConfig,
                  output: str | os.PathLike[str], encode: Callable[..., tuple[list[Encoded], int]],
                  sampler: Callable[[list[Encoded], int], PlannedBatchSampler]) -> RewardModelTrainer:
    """Threads, seed, parameters, encoded rows, batch sampler and the Trainer of one run; `trainer.skipped` counts
    the training items too long to keep."""
    from transformers.trainer_callback import ProgressCallback

    if config.threads:
        torch.set_num_threads(config.threads)
    torch.manual_seed(config.seed)  # LoRA's initial adapters
    prepare_parameters(prm, config)
    enc_train, skipped = encode(prm, train, config.max_length)
    enc_held, _ = encode(prm, held, config.max_length)
    accumulation = accumulation_steps(config)
    batches = sampler(enc_train, accumulation)
    steps = config.max_steps or batches.total_steps(config.epochs)
    args = training_arguments(config, output, steps, accumulation, evaluate=bool(enc_held))
    trainer = RewardModelTrainer(prm, args, enc_train, enc_held, batches)
    trainer.remove_callback(ProgressCallback)
    trainer.add_callback(LossProgress())
    trainer.skipped = skipped
    return trainer


def build_trainer(prm: RewardModel, train: list[Example], held: list[Example], config: TrainConfig,
                  output: str | os.PathLike[str], log: Callable[[str], None] = print) -> RewardModelTrainer:
    """Encode, prepare the parameters (LoRA / frozen layers) and set up the Trainer of one run."""
    def sampler(rows: list[Encoded], accumulation: int) -> ProblemBatchSampler:
        return ProblemBatchSampler([e.problem_id for e in rows], [len(e.ids) for e in rows], config.batch_traces,
                                   accumulation, config.seed)

    trainer = setup_trainer(prm, train, held, config, output, encode_examples, sampler)
    rows, steps = trainer.train_dataset.items, trainer.args.max_steps
    log(f"{prm.config.kind}: {len(rows)} traces ({trainer.skipped} skipped as too long), "
        f"{sum(len(e.positions) for e in rows)} targets, {sum(len(e.ids) for e in rows)} tokens; held-out "
        f"{len(trainer.held_out)} traces; {trainable_parameters(prm)} trainable parameters; {steps} steps of "
        f"~{config.batch_traces} traces ({trainer.sampler.accumulation} micro-batches each)")
    return trainer


def last_checkpoint(output: str | os.PathLike[str]) -> str | None:
    """The highest `<output>/checkpoint-N` that is complete (a whole `trainer_state.json`, which is written last)."""
    done = [p for p in Path(output).glob("checkpoint-*")
            if p.name[11:].isdigit() and _whole_json(p / "trainer_state.json")]
    return str(max(done, key=lambda p: int(p.name[11:]))) if done else None


def _whole_json(path: Path) -> bool:
    try:
        json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return True


def train_reward_model(examples: list[Any], model_config: RewardModelConfig, train_config: TrainConfig,
                       output: str | os.PathLike[str], held_out_problems: int = 0, log: Callable[[str], None] = print,
                       build: Callable[..., RewardModelTrainer] = build_trainer) -> dict:
    """Train on `examples` (traces, or pairs with `build_pair_trainer`), the held-out problems checked per
    `eval_strategy`; save to `output` and return its `train_log.json` record."""
    check_output_path(output, directory=True)  # before any model work: a bad path must not lose the training
    train, held = split_held_out(examples, held_out_problems)
    torch.manual_seed(train_config.seed)  # the rows of added reserved tokens are drawn at random
    prm = RewardModel.from_base(train_config.model, model_config)
    if train_config.keep_layers:
        prm.truncate_layers(train_config.keep_layers)
    trainer = build(prm, train, held, train_config, output, log)
    last = last_checkpoint(output) if train_config.resume else None
    if train_config.resume:
        log(f"resuming from {last}" if last else f"no checkpoint in {output} to resume from: training from the start")
    trainer.train(resume_from_checkpoint=last)
    checked = [r["step"] for r in trainer.state.log_history if "eval_loss" in r]
    if held and (not checked or checked[-1] != trainer.state.global_step):
        trainer.evaluate()  # the last step's held-out check when the strategy did not end on it
    whole = trainer.elapsed()
    seconds = whole - trainer.before  # this process's part (the whole run's when it did not resume)
    prm.save_pretrained(output)
    logs = trainer.state.log_history
    history = [{"epoch": r["epoch"], "step": r["step"], "seconds": r["seconds"], "tokens": r["tokens"],
                "loss": r["eval_loss"], "accuracy": r["eval_accuracy"], "targets": r["eval_targets"]}
               for r in logs if "eval_loss" in r]
    record = {"model_config": asdict(model_config), "train_config": asdict(train_config), "history": history,
              "log_history": logs, "train_seconds": whole, "seconds_this_run": seconds,
              "train_traces": len(trainer.train_dataset), "skipped": trainer.skipped, "resumed_from": last}
    Path(output, TRAIN_LOG).write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    log(f"saved {output} after {whole:.0f}s of training" + (f" ({seconds:.0f}s since {last})" if last else ""))
    return record
