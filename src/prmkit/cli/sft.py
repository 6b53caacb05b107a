"""`prmkit sft`: a supervised warm start of the bench's policy on right traces of bench problems (TRL SFTTrainer).

    prmkit sft --output runs/sft --problems 960 --levels 1,2,3,4,5,6
    prmkit bench --policy runs/sft --output runs/bench_sft

Writes the policy (a Hugging Face model directory), its checkpoints, sft_data.jsonl and sft_run.json into --output
(see `prmkit.experiments.sft`); a re-run continues from the last checkpoint.
"""

from __future__ import annotations

import argparse

from prmkit.cli.common import add_config_arguments, config_from_args
from prmkit.experiments.sft import SFTRunConfig


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_config_arguments(p, SFTRunConfig)


def run(args: argparse.Namespace) -> None:
    from prmkit.experiments.sft import run_sft

    cfg = config_from_args(SFTRunConfig, args)
    result = run_sft(cfg, progress=not args.quiet, log=lambda m: print(m, flush=True))
    print(f"{result['steps']} steps, {result['tokens_trained']} tokens, {result['seconds']:.0f} s, peak "
          f"{result['peak_rss_mib']:.0f} MiB -> {cfg.output}/sft_run.json")
