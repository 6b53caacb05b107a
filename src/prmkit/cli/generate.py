"""`prmkit generate`: sample K step-delimited CoTs per problem, validate them, filter (MCNIG paper, sec. 3.1).

Writes every generated pool to `--raw` (append-only: a re-run resumes), then the filtered pools to `--output`.

    prmkit generate --data demo --k 8 --output runs/demo/pools.jsonl
"""

from __future__ import annotations

import argparse

from prmkit.cli.common import add_config_arguments, config_from_args
from prmkit.generate import GenerateConfig, run_generation


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--output", required=True, help="filtered Pool jsonl")
    p.add_argument("--raw", default=None, help="all generated pools, resumable (default: OUTPUT with .raw.jsonl)")
    add_config_arguments(p, GenerateConfig)


def run(args: argparse.Namespace) -> None:
    config = config_from_args(GenerateConfig, args)
    report = run_generation(config, args.output, args.raw, progress=not args.quiet,
                            log=lambda msg: print(msg, flush=True))
    print("\n".join(report.lines()))
