"""`prmkit export`: pools + step labels -> TRL stepwise supervision (`{prompt, completions, labels}`).

Prints what the join left out (traces without labels or steps, labels without a trace); the output is written
whole or not at all.
"""

from __future__ import annotations

import argparse

from prmkit.data.formats import read_pools
from prmkit.data.join import JoinReport, read_labels
from prmkit.data.jsonl import write_records
from prmkit.data.outputs import check_output_path
from prmkit.data.trl import to_trl

FORMATS = {"trl": False, "trl-soft": True}  # name -> write raw scores instead of 0/1 labels


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--format", choices=sorted(FORMATS), default="trl", help="trl: 0/1 labels; trl-soft: raw scores")
    p.add_argument("--pools", required=True, help="the pool file the labels were made from")
    p.add_argument("--labels", required=True, help="StepLabels JSONL from `prmkit label`")
    p.add_argument("--output", required=True, help="TRL stepwise JSONL")
    p.add_argument("--allow-duplicates", action="store_true",
                   help="keep the first of repeated problem ids / labeled trace ids instead of refusing")
    p.add_argument("--require-all-labels", action="store_true",
                   help="a trace without labels or a label without a trace is an error")


def run(args: argparse.Namespace) -> int:
    check_output_path(args.output)
    labels = read_labels(args.labels, args.allow_duplicates)
    if not FORMATS[args.format] and any(len(r.labels) != len(r.scores) for r in labels):
        raise ValueError(f"{args.labels} has no binary labels yet: run `prmkit threshold` or use --format trl-soft")
    report = JoinReport()
    records = to_trl(read_pools(args.pools, allow_duplicates=args.allow_duplicates), labels,
                     soft=FORMATS[args.format], report=report, require_all=args.require_all_labels)
    n = write_records(args.output, records)
    print(f"wrote {n} TRL records to {args.output} ({report.line()})")
    return 0
