"""`prmkit verify POOLS`: re-validate every trace's answer with its problem's validator (MCNIG paper, sec. 3.1).

Prints how many verdicts changed; with `--output` writes the pools with updated `correct` flags and answer sets.

    prmkit verify runs/demo/pools.jsonl --output runs/demo/pools.verified.jsonl
    prmkit verify runs/demo/pools.raw.jsonl --reextract --output runs/demo/pools.raw2.jsonl
"""

from __future__ import annotations

import argparse

from prmkit.cli.common import add_config_arguments, config_from_args
from prmkit.generate import VerifyConfig, reverify_file


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("pools", help="Pool jsonl")
    add_config_arguments(p, VerifyConfig)


def run(args: argparse.Namespace) -> None:
    cfg = config_from_args(VerifyConfig, args)
    reverify_file(args.pools, cfg.output, show=cfg.show, reextract=cfg.reextract,
                  allow_duplicates=cfg.allow_duplicates)
