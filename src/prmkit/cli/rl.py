"""`prmkit rl grpo`: train a policy with TRL's GRPO on outcome and process rewards (PSPO-WRS, PUM/PRM advantages);
`prmkit rl compare`: runs of several reward settings, seeds each, on their held-out curves.

    prmkit rl grpo --output runs/rl_outcome                                     # validator reward only
    prmkit rl grpo --reward outcome+pspo_wrs:runs/prm --output runs/rl_pspo      # + PSPO-WRS (eq. 9-11)
    prmkit rl grpo --process pum:runs/pum --output runs/rl_pum                  # + PUM step advantages (D.4)
    prmkit rl grpo --data train.jsonl --problems-range 0:500 --heldout-range 500:600 --output runs/rl_gsm8k
    prmkit rl compare outcome=runs/rl/o_s0,runs/rl/o_s1 pum=runs/rl/p_s0,runs/rl/p_s1 --output runs/rl/compare

`grpo` writes checkpoints (`--resume` continues), metrics.jsonl, curves.png, heldout.jsonl / heldout.png /
heldout.json, final/ and report.json into --output. `compare` writes compare.json, compare.md, compare.png and
hacking.png (`prmkit.rl.compare`).
"""

from __future__ import annotations

import argparse

from prmkit.cli.common import add_config_arguments, config_from_args
from prmkit.rl.config import RLConfig

COMMANDS = ("grpo", "compare")  # grpo alone: TRL 1.16 has no PPO trainer (docs/rl.md)


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="algorithm", required=True, metavar="COMMAND")
    grpo = sub.add_parser("grpo", help="TRL's GRPOTrainer (+ per-step process advantages)",
                          description="train a policy with GRPO on outcome and process rewards")
    grpo.add_argument("--output", required=True, help="run directory (checkpoints, metrics, curves, final policy)")
    add_config_arguments(grpo, RLConfig)
    compare = sub.add_parser("compare", help="several reward settings' runs side by side (held-out curves)",
                             description="RL runs of several settings, seeds each: held-out curves, final accuracy "
                                         "against the first setting with two 95% intervals (over problems: paired "
                                         "bootstrap; over seeds: t, paired by seed or Welch's), steps to the first "
                                         "setting's final accuracy, tokens, seconds, peak RSS, reward-hacking checks")
    compare.add_argument("runs", nargs="+", metavar="NAME=RUN[,RUN...]",
                         help="a setting and its runs (prmkit rl grpo outputs with --heldout-steps); the first is the "
                              "baseline")
    compare.add_argument("--output", required=True,
                         help="directory for compare.json, compare.md, compare.png, hacking.png")
    compare.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples (intervals over problems)")


def run(args: argparse.Namespace) -> None:
    if args.algorithm == "compare":
        from prmkit.rl.compare import compare_runs, format_compare, parse_groups

        print(format_compare(compare_runs(parse_groups(args.runs), args.output, args.bootstrap)))
        return
    from prmkit.rl.run import run_grpo

    config = config_from_args(RLConfig, args)
    report = run_grpo(config, args.output, log=lambda msg: print(msg, flush=True))
    held = report["heldout"]
    if "before" in held and "after" in held:
        print(f"held-out accuracy {held['before']['accuracy']:.3f} -> {held['after']['accuracy']:.3f} "
              f"({report['heldout_problems']} problems x {held['after']['samples'] // report['heldout_problems']} "
              f"samples)")
    print(f"{report['steps']} steps in {report['train_seconds']:.0f} s -> {args.output}")
