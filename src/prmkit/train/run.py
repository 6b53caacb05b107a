"""`prmkit train KIND`: settings -> recipe -> head -> output check -> examples -> a saved reward model."""

import json
import shutil
import sys
from collections.abc import Callable, Mapping
from dataclasses import fields
from pathlib import Path
from typing import Any

from prmkit.data.manifest import fixed_settings, settings_diff
from prmkit.data.outputs import atomic_path, claim_outputs, claims
from prmkit.data.settings import build_configs
from prmkit.models.heads import head_class
from prmkit.models.reward import RUN_RECORD, TRAIN_LOG, RewardModelConfig
from prmkit.train.config import TrainConfig, TrainInputs
from prmkit.train.recipe_files import RECIPES_DIR, recipe_path

__all__ = ["KIND_ALIASES", "RUN_FLAGS", "SETTINGS", "check_inputs", "check_run_output", "choose_recipe",
           "note_overrides", "resolve_configs", "train", "train_configs", "train_verb"]

SETTINGS: tuple[type, ...] = (TrainConfig, RewardModelConfig, TrainInputs)
# other names of a head kind
KIND_ALIASES = {"pum": "bt"}
# settings of how a run is carried out, not of how it learns: given beside a recipe, not noted as overriding it
RUN_FLAGS = {"model", "resume", "threads", "seed", "eval_strategy", "eval_steps", "save_strategy", "save_steps",
             "save_total_limit", "logging_steps", "report_to"}


def choose_recipe(config_file: str | None, log: Callable[[str], None] = print) -> str:
    """The config file of the run: `config_file` (a file, or a recipe's name), else the machine's recipe (logged)."""
    import torch

    if config_file:  # a YAML path as it is (a missing one is an error where it is read), a bare name a recipe
        named = not Path(config_file).exists() and Path(config_file).suffix not in (".yaml", ".yml")
        return str(recipe_path(config_file)) if named else config_file
    name = "gpu" if torch.cuda.is_available() else "cpu"
    path = str(recipe_path(name))
    log(f"recipe {name}: {path} (no --config given; a flag overrides its one field)")
    return path


def note_overrides(settings: Mapping[str, Any], config_file: str, where: str = "prmkit train") -> list[str]:
    """Say on stderr which training settings given override a field of `config_file` ("--max-steps 3 overrides
    recipes/cpu.yaml's max_steps"); returns the lines."""
    path = Path(config_file)
    shown = f"recipes/{path.name}" if path.resolve().parent == RECIPES_DIR else config_file
    training = {f.name for cls in (TrainConfig, RewardModelConfig) for f in fields(cls)} - RUN_FLAGS
    lines = [f"{'--' + name.replace('_', '-')} {settings[name]} overrides {shown}'s {name}"
             for name in sorted(training & set(settings))]
    for line in lines:
        print(f"{where}: note: {line}", file=sys.stderr)
    return lines


def resolve_configs(kind: str, settings: Mapping[str, Any], config: str | None = None,
                    log: Callable[[str], None] = print) -> tuple[TrainConfig, RewardModelConfig, TrainInputs]:
    """The configs of a run of head `kind`: defaults <- the `config` file or the machine's recipe <- `settings`."""
    kind = KIND_ALIASES.get(kind, kind)
    head = head_class(kind)
    path = choose_recipe(config, log)
    note_overrides(settings, path)
    defaults = {"aggregation": head.aggregation} if head.aggregation else None  # the head's way to score a trace
    return tuple(build_configs(SETTINGS, settings, path, {"kind": kind}, skip=("kind",), defaults=defaults))


def check_run_output(output: str | Path, identity: Mapping[str, Any], resume: bool, overwrite: bool,
                     log: Callable[[str], None] = print) -> None:
    """Raise ValueError on a non-empty `output` unless it holds this run's checkpoint and `resume` is set, or
    `overwrite` is set (its old checkpoints then removed)."""
    path = Path(output)
    if not path.is_dir() or not any(path.iterdir()):
        return
    if overwrite:
        for old in [*path.glob("checkpoint-*"), path / RUN_RECORD]:
            shutil.rmtree(old) if old.is_dir() else old.unlink(missing_ok=True)
        log(f"--overwrite: {path} is replaced by this run")
        return
    saved = path / RUN_RECORD
    if resume and saved.is_file():
        if diff := settings_diff(json.loads(saved.read_text(encoding="utf-8")), identity):
            raise ValueError(f"{path} holds a run with other settings ({'; '.join(diff)}): --resume continues only "
                             "the same run; pass --overwrite to replace it, or choose another --output")
        return
    what = (f"a finished model ({TRAIN_LOG})" if (path / TRAIN_LOG).is_file()
            else "the checkpoints of a run" if saved.is_file() else "files of something else")
    raise ValueError(f"{path} is not empty: it holds {what}. "
                     + ("" if what.startswith("files") or resume else "--resume continues an unfinished run; ")
                     + "pass --overwrite to replace it, or choose another --output")


def _traces(kind: str, inputs: TrainInputs, log: Callable[[str], None]) -> list:
    from prmkit.data.join import JoinReport
    from prmkit.train.data import read_training_set

    report = JoinReport()
    examples = read_training_set(kind, inputs.pools, inputs.labels, inputs.problems_range, inputs.soft,
                                 inputs.neutral_band, report, inputs.allow_duplicates, inputs.require_all_labels)
    log(f"join: {report.line()}")
    if not examples:
        raise ValueError("no training examples: check that the labels' trace ids match the pools")
    return examples


def _pairs(kind: str, inputs: TrainInputs, log: Callable[[str], None]) -> list:
    from prmkit.train.pum_pairs import read_pair_examples

    if not inputs.pairs:
        raise ValueError(f"train {kind} needs pairs (--pairs: a PrefixPair JSONL from `prmkit pum`)")
    examples = read_pair_examples(inputs.pairs, inputs.problems_range)
    log(f"pairs: {len(examples)} from {inputs.pairs}")
    if not examples:
        raise ValueError(f"no pairs in {inputs.pairs} (within the problems range)")
    return examples


# Head.label_source -> how a run reads its training examples (traces with labels otherwise)
INPUTS: dict[str, Callable[[str, TrainInputs, Callable[[str], None]], list]] = {"pairs": _pairs}
# the TrainInputs fields that say what a run trains on, and those each Head.label_source reads (another is an error)
TRAINS_ON = ("pools", "labels", "pairs", "soft", "neutral_band")
READS = {"steps": ("pools", "labels", "soft"), "three_class": ("pools", "labels", "neutral_band"),
         "outcome": ("pools", "labels"), "pairs": ("pairs",)}


def check_inputs(kind: str, label_source: str, inputs: TrainInputs) -> None:
    """Refuse an input setting that head `kind` does not read (`READS`), naming its flag."""
    flag = lambda name: "--" + name.replace("_", "-")  # noqa: E731
    reads = READS.get(label_source, TRAINS_ON)
    if unread := [flag(n) for n in TRAINS_ON if getattr(inputs, n) not in (None, False) and n not in reads]:
        raise ValueError(f"train {kind} does not use {', '.join(unread)} (it reads {' '.join(map(flag, reads))})")


def train(kind: str, output: str | Path, settings: Mapping[str, Any] | None = None, config: str | None = None,
          log: Callable[[str], None] = print, examples: list | None = None) -> dict[str, Any]:
    """Train a reward model of head `kind` (or `pum`) into `output`: defaults <- the `config` file (or the machine's
    recipe) <- `settings`; `examples` already built replace the input files. Returns the run's `train_log.json`."""
    return train_configs(output, resolve_configs(kind, dict(settings or {}), config, log), log, examples)


def train_configs(output: str | Path, configs: tuple[TrainConfig, RewardModelConfig, TrainInputs],
                  log: Callable[[str], None] = print, examples: list | None = None) -> dict[str, Any]:
    """`train` on configs already built (`resolve_configs`, then `dataclasses.replace`); the head is their `kind`."""
    from prmkit.train.pum_pairs import build_pair_trainer
    from prmkit.train.recipe import default_held_out, train_reward_model

    train_config, model_config, inputs = configs
    kind = model_config.kind
    head = head_class(kind)
    check_inputs(kind, head.label_source, inputs)
    identity = {"kind": kind, "train": fixed_settings(train_config), "model": fixed_settings(model_config),
                "inputs": fixed_settings(inputs)}
    with claim_outputs(**claims(train_config, inputs, outputs={"--output": output}, directories=("--output",))):
        check_run_output(output, identity, train_config.resume, inputs.overwrite, log)
        if examples is None:
            examples = INPUTS.get(head.label_source, _traces)(kind, inputs, log)
        elif inputs.pools or inputs.labels or inputs.pairs:
            raise ValueError("train: give the examples or the files to read them from, not both")
        extra = {"build": build_pair_trainer} if head.label_source == "pairs" else {}
        with atomic_path(Path(output, RUN_RECORD)) as tmp:
            tmp.write_text(json.dumps(identity, indent=2) + "\n", encoding="utf-8")
        held_out = default_held_out(examples) if inputs.held_out is None else inputs.held_out
        return train_reward_model(examples, model_config, train_config, output, held_out, log=log, **extra)


def train_verb(settings: Mapping[str, Any], config: str | None = None, log: Callable[[str], None] = print
               ) -> dict[str, Any]:
    """`prmkit train KIND --output DIR ...`: `train` with the kind and output among the settings (`TrainTarget`)."""
    settings = dict(settings)
    kind, output = settings.pop("kind", None), settings.pop("output", None)
    if not kind or not output:
        raise ValueError("train needs a kind (prm, orm, prm3, bt, pum) and an output directory")
    return train(kind, output, settings, config, log)
