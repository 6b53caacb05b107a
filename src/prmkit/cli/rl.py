"""`prmkit rl grpo`: train a policy with TRL's GRPO on outcome and process rewards (PSPO-WRS, PUM/PRM advantages).

    prmkit rl grpo --output runs/rl_outcome                                     # validator reward only
    prmkit rl grpo --reward outcome+pspo_wrs:runs/prm --output runs/rl_pspo      # + PSPO-WRS (eq. 9-11)
    prmkit rl grpo --process pum:runs/pum --output runs/rl_pum                  # + PUM step advantages (D.4)
    prmkit rl grpo --data train.jsonl --problems-range 0:500 --heldout-range 500:600 --output runs/rl_gsm8k

Writes checkpoints (`--resume` continues), metrics.jsonl, curves.png, heldout.json, final/ and report.json into
--output. Every RLConfig field is a flag and may come from `--config rl.yaml`.
"""

from __future__ import annotations

import argparse

from prmkit.cli.common import add_config_arguments, config_from_args
from prmkit.rl.config import RLConfig

ALGORITHMS = ("grpo",)  # TRL 1.16 has no PPO trainer: see docs/rl.md


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("algorithm", choices=ALGORITHMS, help="grpo: TRL's GRPOTrainer (+ per-step process advantages)")
    p.add_argument("--output", required=True, help="run directory (checkpoints, metrics, curves, final policy)")
    add_config_arguments(p, RLConfig)


def run(args: argparse.Namespace) -> int:
    from prmkit.rl.run import run_grpo

    config = config_from_args(RLConfig, args)
    report = run_grpo(config, args.output, log=lambda msg: print(msg, flush=True))
    held = report["heldout"]
    if "before" in held and "after" in held:
        print(f"held-out accuracy {held['before']['accuracy']:.3f} -> {held['after']['accuracy']:.3f} "
              f"({report['heldout_problems']} problems x {held['after']['samples'] // report['heldout_problems']} "
              f"samples)")
    print(f"{report['steps']} steps in {report['train_seconds']:.0f} s -> {args.output}")
    return 0
