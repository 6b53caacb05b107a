"""`prmkit search`: beam search guided by a step scorer (PUM sec 4.3), and best-of-N at about the same budget.

Appends one record per problem to `--output` (append-only: a re-run resumes) and prints accuracy, majority-vote
accuracy, generated tokens per problem and tok/s.

    prmkit search beam --input demo --limit 20 --prm runs/prm --k 4 --width 2 --output runs/search/beam.jsonl
    prmkit search beam,bon --input demo --prm runs/prm --output 'runs/search/{method}.jsonl'   # both, one run
"""

from __future__ import annotations

import argparse

from prmkit.cli.common import add_config_arguments, config_from_args
from prmkit.search import METHODS, BeamConfig, run_search


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("methods", help=f"search method(s), comma-separated: {', '.join(METHODS)} (bon = best-of-N)")
    p.add_argument("--output", required=True, help="search records jsonl, one line per problem (append-only, "
                                                   "resumable); with several methods it must contain {method}")
    add_config_arguments(p, BeamConfig)


def run(args: argparse.Namespace) -> None:
    run_search(config_from_args(BeamConfig, args), args.methods, args.output, progress=not args.quiet,
               log=lambda msg: print(msg, flush=True))
