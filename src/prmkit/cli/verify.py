"""`prmkit verify POOLS`: re-validate every trace's answer with its problem's validator (MCNIG paper, sec. 3.1).

Prints how many verdicts changed; with `--output` writes the pools with updated `correct` flags and answer sets.

    prmkit verify runs/demo/pools.jsonl --output runs/demo/pools.verified.jsonl
    prmkit verify runs/demo/pools.raw.jsonl --reextract --output runs/demo/pools.raw2.jsonl
"""

from __future__ import annotations

import argparse

from prmkit.generate import reverify_file


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("pools", help="Pool jsonl")
    p.add_argument("--output", default=None, help="write the re-validated pools here")
    p.add_argument("--show", type=int, default=10, help="list at most this many changed verdicts")
    p.add_argument("--reextract", action="store_true",
                   help="extract each answer again from the steps first (after an extractor change)")


def run(args: argparse.Namespace) -> int:
    reverify_file(args.pools, args.output, show=args.show, reextract=args.reextract)
    return 0
