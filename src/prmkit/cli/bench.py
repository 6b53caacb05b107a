"""`prmkit bench`: the step-label bench, every labeler scored against exact step truth with its cost.

    prmkit bench --output runs/bench --problems 24 --levels 1,2,3 --labelers ig,mcnig,math-shepherd

Writes OUTPUT/report.json, table.md and f1_tokens.png (see `prmkit.experiments.bench`) and prints the table; a re-run
into the same directory resumes.
"""

from __future__ import annotations

import argparse
import sys

from prmkit.cli.common import add_config_arguments, config_from_args
from prmkit.experiments.bench import BenchConfig, run_bench
from prmkit.experiments.bench_report import format_bench


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_config_arguments(p, BenchConfig)


def run(args: argparse.Namespace) -> None:
    cfg = config_from_args(BenchConfig, args)
    report = run_bench(cfg, progress=not args.quiet, log=lambda m: print(f"prmkit bench: {m}", file=sys.stderr))
    print(format_bench(report))
    print(f"wrote {cfg.output}/report.json, table.md" + (", f1_tokens.png" if report["rows"] else ""))
