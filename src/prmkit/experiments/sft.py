"""`prmkit sft`: a short supervised warm start of the bench's policy on right bench traces (TRL's `SFTTrainer`), so
that rollout labelers see a signal in its samples (docs/bench.md, "A warm-started policy"; outputs: docs/formats.md)."""

import json
import os
import resource
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prmkit.data.bench import check_difficulty
from prmkit.data.jsonl import write_records
from prmkit.data.manifest import fixed_settings, keep_settings, may_change, write_manifest
from prmkit.data.outputs import atomic_path, claim_outputs, claims, follow_umask
from prmkit.data.settings import BATCH_SIZE, COUNT, FRACTION, LR, NON_NEGATIVE, SEED, Range
from prmkit.data.settings import field_help as _help
from prmkit.data.templates import prompt_template
from prmkit.experiments.bench_sets import LEVELS_HELP, SIZE_HELP, excluded_questions
from prmkit.models.loading import DEFAULT_MODEL
from prmkit.train.arguments import trainer_overrides
from prmkit.train.config import TrainRunConfig

__all__ = ["DATA_FILE", "SETTINGS_FILE", "SFT_RECORD", "SFTRunConfig", "run_sft"]

DATA_FILE = "sft_data.jsonl"
SETTINGS_FILE = "sft_settings.json"  # the resume check's settings
SFT_RECORD = "sft_run.json"


@dataclass
class SFTRunConfig(TrainRunConfig):
    """A warm start of the bench's policy on right bench traces (TRL SFTTrainer): `TrainRunConfig` with its defaults."""

    output: str | None = field(default=None, metadata=_help("run directory (required): checkpoints, the policy, "
                                                            "sft_run.json; a re-run continues.", resume="may-change",
                                                            role="output-dir"))
    model: str = field(default=DEFAULT_MODEL, metadata=_help("the policy to warm-start: embedded name or local HF "
                                                             "directory.", role="input"))
    problems: int = field(default=960, metadata=_help("training problems, spread evenly over the levels."))
    levels: str = field(default="1,2,3,4,5,6", metadata=_help(LEVELS_HELP))
    size: str = field(default="small", metadata=_help(SIZE_HELP))
    seed: int = field(default=1, metadata=_help("seed of the training problems, the data order and initialisation; "
                                                "not the bench's seed.", range=SEED))
    bench_seed: int = field(default=0, metadata=_help("seed of the bench the policy is evaluated on: its problems "
                                                      "are left out of the training set."))
    holdout: int = field(default=1000, metadata=_help("the bench's first N problems at --bench-seed (same levels and "
                                                      "size) are left out, by question text."))
    exclude: list[str] = field(default_factory=list, metadata=_help(
        "JSONL files whose questions are left out too (a bench's problems.jsonl, prmkit data bench sets, another "
        "warm start's sft_data.jsonl: lines with `question` or `problem.question`), e.g. every evaluation set.",
        role="input"))
    lr: float = field(default=1e-4, metadata=_help("AdamW learning rate.", range=LR))
    lora_r: int = field(default=0, metadata=_help("LoRA rank via peft (merged into the saved policy); 0 = full "
                                                  "fine-tuning.", range=NON_NEGATIVE))
    epochs: float = field(default=1.0, metadata=_help("passes over the training problems (when max_steps is 0).",
                                                      range=Range(0, 100_000, open_low=True)))
    max_steps: int = field(default=0, metadata=_help("stop after this many optimiser steps (0: run `epochs`).",
                                                     range=NON_NEGATIVE))
    batch_size: int = field(default=8, metadata=_help("examples per optimiser step.", range=BATCH_SIZE))
    micro_batch: int = field(default=8, metadata=_help("examples per forward pass, gradient accumulation up to "
                                                       "batch_size (a divisor of it; less memory, same steps).",
                                                       range=COUNT))
    max_length: int = field(default=1024, metadata=_help("tokens per example (prompt + completion); longer ones are "
                                                         "cut.", range=COUNT))
    warmup: float = field(default=0.05, metadata=_help("fraction of steps with linear warm-up, then linear decay.",
                                                       range=FRACTION))
    chat: bool = field(default=True, metadata=_help("few-shot prompts in the policy's chat template (as the bench "
                                                    "samples it)."))
    template: str | None = field(default=None, metadata=_help(
        "prompt template: a built-in name (generate_math_0shot: instruction and question only, ~5x fewer tokens a "
        "step; generate_math_1shot) or a file; None: the domain's few-shot template. Sample the policy with the "
        "same one (prmkit rl grpo --template)."))
    save_steps: int = field(default=25, metadata=_help("optimiser steps between checkpoints <output>/checkpoint-N.",
                                                       resume="may-change", range=NON_NEGATIVE))
    logging_steps: int = field(default=5, metadata=_help("optimiser steps between loss logs.", resume="may-change",
                                                         range=COUNT))
    resume: bool = field(default=True, metadata=_help("continue from the last <output>/checkpoint-N of this run; "
                                                      "--no-resume: an output holding checkpoints is an error.",
                                                      resume="may-change"))
    trainer_args: list[str] = field(default_factory=list, metadata=_help(
        "further trl.SFTConfig arguments as KEY=VALUE (YAML value), e.g. activation_checkpointing=true."))

    def __post_init__(self) -> None:
        super().__post_init__()
        check_difficulty(self.levels, self.size)
        if self.problems < 1:
            raise ValueError("problems must be >= 1")
        if self.holdout < 0:
            raise ValueError("holdout must be >= 0")
        if self.seed == self.bench_seed:
            raise ValueError(f"seed {self.seed} is the bench's seed (bench_seed): the warm start would train on the "
                             "bench's problems; choose another")
        if self.batch_size % min(self.micro_batch, self.batch_size):
            raise ValueError(f"micro_batch {self.micro_batch} does not divide batch_size {self.batch_size}")
        prompt_template(self.template)  # an unknown name, a missing or empty file: an error before any model loads

    def level_list(self) -> list[int]:
        return check_difficulty(self.levels, self.size)


def _arguments(config: SFTRunConfig, output: Path, progress: bool) -> Any:
    """The `trl.SFTConfig` of a run (prmkit's names -> TRL's; `trainer_args` passed through last)."""
    import torch
    from trl import SFTConfig

    gpu = torch.cuda.is_available()
    micro = min(config.micro_batch, config.batch_size)
    kwargs: dict[str, Any] = dict(
        output_dir=str(output), learning_rate=config.lr, num_train_epochs=config.epochs,
        max_steps=config.max_steps or -1, per_device_train_batch_size=micro,
        gradient_accumulation_steps=config.batch_size // micro, warmup_steps=config.warmup, lr_scheduler_type="linear",
        seed=config.seed, logging_steps=config.logging_steps, save_strategy="steps", save_steps=config.save_steps or 25,
        save_total_limit=config.save_total_limit or None, report_to=[], max_length=config.max_length,
        completion_only_loss=True, packing=False, dataloader_pin_memory=False, use_cpu=not gpu,
        include_num_input_tokens_seen="non_padding", disable_tqdm=not progress,
        # TRL's SFTConfig turns bf16 and gradient checkpointing on; on a CPU both only cost time (see rl/run.py)
        bf16=gpu, **_no_checkpointing(SFTConfig),
    )
    return SFTConfig(**(kwargs | trainer_overrides(config.trainer_args)))


def _no_checkpointing(config_class: type) -> dict[str, Any]:
    """Gradient checkpointing off, under the name the installed transformers uses."""
    from dataclasses import fields

    if "activation_checkpointing" in {f.name for f in fields(config_class)}:
        return {"activation_checkpointing": False, "gradient_checkpointing": None}
    return {"gradient_checkpointing": False}


def _peak_memory() -> dict[str, float]:
    """This process's peak resident memory (MiB) and, on a GPU, the peak allocated by torch."""
    import torch

    out = {"peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}
    if torch.cuda.is_available():
        out["peak_gpu_mib"] = round(torch.cuda.max_memory_allocated() / 2**20, 1)
    return out


class _Record:
    """`sft_run.json`: what the run cost and learnt so far; seconds of earlier (interrupted) runs are kept."""

    def __init__(self, path: Path, base: dict[str, Any]):
        self.path = path
        old = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
        self.before = float(old.get("seconds", 0.0))  # wall time of the runs this one continues (up to their saves)
        self.start = time.perf_counter()
        self.data = base | {"runs": old.get("runs", 0) + 1, "done": False}

    def write(self, state: Any, **extra: Any) -> dict[str, Any]:
        losses = [{"step": h["step"], "loss": h["loss"]} for h in state.log_history if "loss" in h]
        self.data |= {"steps": state.global_step, "max_steps": state.max_steps, "train_loss": losses,
                      "mean_train_loss": sum(x["loss"] for x in losses) / len(losses) if losses else None,
                      "first_train_loss": losses[0]["loss"] if losses else None,
                      "last_train_loss": losses[-1]["loss"] if losses else None,
                      "tokens_trained": int(getattr(state, "num_input_tokens_seen", 0) or 0),
                      "seconds": round(self.before + time.perf_counter() - self.start, 1), **_peak_memory(), **extra}
        with atomic_path(self.path) as tmp:
            tmp.write_text(json.dumps(self.data, indent=1) + "\n", encoding="utf-8")
        return self.data


def _callback(record: _Record) -> Any:
    from transformers import TrainerCallback

    class RecordAtSave(TrainerCallback):
        """Rewrite `sft_run.json` whenever a checkpoint is written (what a crash keeps, the record keeps)."""

        def on_save(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            record.write(state)

    return RecordAtSave()


def run_sft(config: SFTRunConfig, progress: bool = True, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Warm-start the policy into `config.output`; returns the run's record (also OUTPUT/sft_run.json)."""
    if not config.output:
        raise ValueError("set --output (the run directory)")
    from prmkit.models.loading import resolve_model

    resolve_model(config.model)  # an unknown model is an error before anything is written
    if missing := [p for p in config.exclude if not Path(p).is_file()]:
        raise FileNotFoundError(f"--exclude: no such file {missing[0]}")
    banned = excluded_questions(list(config.exclude))  # an empty or malformed file: an error before any model loads
    out = Path(config.output)
    with claim_outputs(**claims(config)):
        return _run(config, out, banned, progress, log)


def _run(config: SFTRunConfig, out: Path, banned: set[str], progress: bool, log: Callable[[str], None]
         ) -> dict[str, Any]:
    if not (out / SETTINGS_FILE).is_file() and out.is_dir() and any(out.iterdir()):
        raise ValueError(f"{out} is not empty and holds no warm start: choose another --output")
    # a warm start made before --template used the domain's few-shot prompt, and before --exclude excluded nothing
    keep_settings(out / SETTINGS_FILE, fixed_settings(config), "a warm start", skip=may_change(config),
                  upgrade=lambda old: {"template": None, "exclude": []} | old)
    run_file = out / SFT_RECORD
    if run_file.is_file() and (done := json.loads(run_file.read_text(encoding="utf-8"))).get("done"):
        log(f"{out} holds a finished warm start ({done['steps']} steps): nothing to do")
        return done

    from datasets import Dataset
    from trl import SFTTrainer

    from prmkit.experiments.sft_data import sft_rows, warm_start_problems
    from prmkit.models.loading import load_trainable
    from prmkit.train.recipe import last_checkpoint

    resume = last_checkpoint(out)
    if resume and not config.resume:
        raise ValueError(f"{out} has checkpoints already: drop --no-resume to continue, or choose a new output")
    problems = warm_start_problems(config.problems, config.seed, tuple(config.level_list()), config.size,
                                   config.bench_seed, config.holdout, banned)
    model, tokenizer, lora = load_trainable(config.model, config.threads, config.lora_r, config.lora_alpha)
    rows = sft_rows(problems, tokenizer, config.chat, config.seed, prompt_template(config.template))
    _check_max_length(rows, tokenizer, config.max_length)
    write_records(out / DATA_FILE, rows)
    record = _Record(run_file, {"model": config.model, "problems": len(rows),
                                "levels": config.level_list(), "resumed_from": resume})
    trainer = SFTTrainer(model=model, args=_arguments(config, out, progress), processing_class=tokenizer,
                         train_dataset=Dataset.from_list([{"prompt": r["prompt"], "completion": r["completion"]}
                                                          for r in rows]),
                         peft_config=lora, callbacks=[_callback(record)])
    lengths = [(sum(x != -100 for x in r), len(r)) for r in trainer.train_dataset["labels"]]  # (loss, all) tokens
    log(f"sft: {len(rows)} problems, {sum(t for t, _ in lengths)} completion tokens of {sum(n for _, n in lengths)}"
        f"; {'continuing from ' + resume if resume else 'from the start'}")
    trainer.train(resume_from_checkpoint=resume)
    _save_policy(trainer, tokenizer, out)
    result = record.write(trainer.state, done=True, completion_tokens_per_epoch=sum(t for t, _ in lengths),
                          tokens_per_epoch=sum(n for _, n in lengths))
    write_manifest(out, "sft", config, inputs={"model": config.model, "exclude": config.exclude},
                   outputs={"data": out / DATA_FILE, "record": run_file},
                   cost={k: result[k] for k in ("steps", "tokens_trained", "seconds")})
    log(f"sft: {result['steps']} steps in {result['seconds']:.0f} s, loss {result['first_train_loss']} -> "
        f"{result['last_train_loss']}; the policy is {out}")
    return result


def _check_max_length(rows: list[dict[str, Any]], tokenizer: Any, max_length: int) -> None:
    """Refuse a `max_length` that the longest prompt alone reaches: its completion would be cut whole."""
    longest, row = max(((len(tokenizer(r["prompt"]).input_ids), r) for r in rows), key=lambda x: x[0])
    if longest >= max_length:
        raise ValueError(f"--max-length {max_length} is not above the prompt's length: the longest prompt (problem "
                         f"{row['problem_id']}) has {longest} tokens, so its completion would be cut whole; give "
                         f"--max-length of at least {longest} plus the completion's tokens, or a shorter --template")


def _save_policy(trainer: Any, tokenizer: Any, out: Path) -> None:
    """The trained policy (LoRA merged) into `out`: written beside it, then moved in with config.json last."""
    model = trainer.model
    if hasattr(model, "merge_and_unload"):
        model = model.merge_and_unload()
    model.config.use_cache = True  # the Trainer turns the KV cache off for training; the policy samples with it
    staging = out / ".policy.tmp"
    shutil.rmtree(staging, ignore_errors=True)
    model.save_pretrained(staging)
    tokenizer.save_pretrained(staging)
    follow_umask(staging)  # safetensors writes its file 0600
    names = sorted(p.name for p in staging.iterdir())
    for name in [n for n in names if n != "config.json"] + ["config.json"]:
        os.replace(staging / name, out / name)
    staging.rmdir()


def format_sft(result: dict[str, Any], cfg: Any) -> str:
    return (f"{result['steps']} steps, {result['tokens_trained']} tokens, {result['seconds']:.0f} s, peak "
            f"{result['peak_rss_mib']:.0f} MiB -> {cfg.output}/sft_run.json")
