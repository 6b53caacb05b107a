"""`prmkit rollout`: K validated continuations after every step prefix of every trace (Math-Shepherd's engine).

Appends one line per prefix to `--output` (append-only: a re-run resumes) and prints prefixes, rollouts, tokens
generated/read and the solve rate.

    prmkit rollout --input runs/demo/pools.jsonl --output runs/demo/rollouts.jsonl --k 8
    prmkit rollout --input demo --limit 3 --k 4 --positions 0 2 --output rollouts.jsonl   # baseline and n = 2
"""

from __future__ import annotations

import argparse

from prmkit.cli.common import add_config_arguments, config_from_args
from prmkit.generate import RolloutConfig, run_rollout


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--output", required=True, help="Rollout jsonl, one line per prefix (append-only, resumable)")
    add_config_arguments(p, RolloutConfig)


def run(args: argparse.Namespace) -> None:
    config = config_from_args(RolloutConfig, args)
    report = run_rollout(config, args.output, progress=not args.quiet, log=lambda msg: print(msg, flush=True))
    print("\n".join(report.lines()))
