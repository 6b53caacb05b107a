"""`prmkit train prm|orm|prm3|bt|pum`: train a reward model on step labels (validator labels for orm, PUM preference
pairs for bt, alias pum).

    prmkit train prm --pools ../shared/data/gsm8k/candidates_dev.jsonl --labels runs/labels_mcnig.jsonl \\
        --problems-range 0:500 --output runs/prm_mcnig
    prmkit train orm --pools pools.jsonl --output runs/orm
    prmkit train prm --labels stepwise_trl.jsonl --output runs/prm   # TRL {prompt, completions, labels}
    prmkit train pum --pairs runs/pum/pairs.jsonl --output runs/pum_model  # PrefixPair JSONL (prmkit pum)

Every TrainConfig / RewardModelConfig field is a flag (`--lr`, `--epochs`, ...) and may come from
`--config run.yaml` (a key that neither has is an error). The kinds are the heads of `prmkit.models.HEADS`.
With no `--config` and no training flag, the recipe for the machine (`recipes/cpu.yaml` or `recipes/gpu.yaml`) is
the config, named in the first printed line; flags of how the run is carried out (`--threads`, `--seed`, the
save/eval/logging ones, `--resume`) are not training flags and keep the recipe. `--resume` continues from the last
`<output>/checkpoint-N`.
Several GPUs: `accelerate launch -m prmkit.cli.main train ...` (the same flags).
"""

from __future__ import annotations

import argparse
from dataclasses import fields

from prmkit.cli.common import add_config_arguments, config_from_args
from prmkit.models.heads import HEADS
from prmkit.models.reward import RewardModelConfig
from prmkit.train.config import TrainConfig

# other names of a head kind on this verb
KIND_ALIASES = {"pum": "bt"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("kind", choices=[*HEADS, *KIND_ALIASES],
                        help=" | ".join(f"{k}: {h.help}" for k, h in HEADS.items()) + " | pum: bt")
    parser.add_argument("--pairs", help="bt/pum: PrefixPair JSONL written by `prmkit pum`")
    parser.add_argument("--pools", help="Pool JSONL or GSM8K candidates_dev.jsonl (traces to join labels to)")
    parser.add_argument("--labels", help="StepLabels JSONL (joined on trace_id), or a TRL stepwise file "
                                         "when --pools is not given")
    parser.add_argument("--output", required=True, help="checkpoint directory to write")
    parser.add_argument("--problems-range", help="problems by index in --pools, e.g. 0:500")
    parser.add_argument("--held-out", type=int, default=None,
                        help="hold out the last N training problems for the per-epoch check (default: 5%% of the "
                             "problems, at least 1 when there are 2 or more; 0 = no check)")
    parser.add_argument("--soft", action="store_true",
                        help="soft targets: sigmoid(score - tau) for IG/MCNIG labels, the values of a TRL file")
    parser.add_argument("--neutral-band", type=float,
                        help="prm3 from IG/MCNIG labels: steps with |score - tau| <= B are neutral (0), above +1, "
                             "below -1")
    parser.add_argument("--allow-duplicates", action="store_true",
                        help="keep the first of repeated problem ids / labeled trace ids instead of refusing")
    parser.add_argument("--require-all-labels", action="store_true",
                        help="a trace without labels or a label without a trace is an error")
    add_config_arguments(parser, TrainConfig, RewardModelConfig, skip=("kind",))


# flags that change how a run is carried out (threads, checkpoints, checks, logs, seed), not what it learns: they
# do not count as choosing the training settings, so the machine's recipe still applies beside them
NOT_SETTINGS = {"resume", "threads", "seed", "eval_strategy", "eval_steps", "save_strategy", "save_steps",
                "save_total_limit", "logging_steps", "report_to"}


def choose_recipe(args: argparse.Namespace) -> None:
    """No --config and no training flag: the machine's recipe becomes --config, said in the first line."""
    from prmkit.train.recipes import default_recipe, recipe_path

    given = [f.name for f in fields(TrainConfig) if f.name not in NOT_SETTINGS and getattr(args, f.name) is not None]
    if args.config or given:
        return
    name = default_recipe()
    args.config = str(recipe_path(name))
    print(f"recipe {name}: {args.config} (no --config and no training flag given; flags override it)", flush=True)


def _examples(args: argparse.Namespace, kind: str) -> tuple[list, dict]:
    """Traces joined with their labels, and the Trainer's defaults for them (none)."""
    from prmkit.data.join import JoinReport
    from prmkit.train.data import read_training_set

    report = JoinReport()
    examples = read_training_set(kind, args.pools, args.labels, args.problems_range, args.soft,
                                 args.neutral_band, report, args.allow_duplicates, args.require_all_labels)
    print(f"join: {report.line()}", flush=True)
    if not examples:
        raise ValueError("no training examples: check that --labels trace ids match --pools")
    return examples, {}


def _pairs(args: argparse.Namespace, kind: str) -> tuple[list, dict]:
    """PUM preference pairs, trained with the pair sampler; a trace's score is its last prefix's utility."""
    from prmkit.train.pairs import build_pair_trainer, read_pair_examples

    if not args.pairs:
        raise ValueError(f"train {args.kind} needs --pairs (a PrefixPair JSONL from `prmkit pum`)")
    examples = read_pair_examples(args.pairs, args.problems_range)
    print(f"pairs: {len(examples)} from {args.pairs}", flush=True)
    if not examples:
        raise ValueError(f"no pairs in {args.pairs} (within --problems-range)")
    return examples, {"build": build_pair_trainer}


# Head.label_source -> how this verb reads its training examples (traces with labels by default)
INPUTS = {"pairs": _pairs}


def run(args: argparse.Namespace) -> int:
    from prmkit.data.outputs import check_output_path
    from prmkit.models.heads import head_class
    from prmkit.train.recipe import default_held_out, train_reward_model

    check_output_path(args.output, directory=True)
    choose_recipe(args)
    kind = KIND_ALIASES.get(args.kind, args.kind)
    head = head_class(kind)
    train_config = config_from_args(TrainConfig, args)
    model_config = config_from_args(RewardModelConfig, args, kind=kind)
    if args.aggregation is None and head.aggregation:  # the head's own way to score a trace, unless given
        model_config.aggregation = head.aggregation
    examples, extra = INPUTS.get(head.label_source, _examples)(args, kind)
    held_out = default_held_out(examples) if args.held_out is None else args.held_out
    train_reward_model(examples, model_config, train_config, args.output, held_out,
                       log=lambda msg: print(msg, flush=True), **extra)
    return 0
