"""`prmkit export`: pools + step labels -> TRL stepwise supervision (`{prompt, completions, labels}`)."""

from __future__ import annotations

import argparse

from prmkit.data.formats import read_pools
from prmkit.data.jsonl import read_records, write_records
from prmkit.data.records import StepLabels
from prmkit.data.trl import to_trl

FORMATS = {"trl": False, "trl-soft": True}  # name -> write raw scores instead of 0/1 labels


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--format", choices=sorted(FORMATS), default="trl", help="trl: 0/1 labels; trl-soft: raw scores")
    p.add_argument("--pools", required=True, help="the pool file the labels were made from")
    p.add_argument("--labels", required=True, help="StepLabels JSONL from `prmkit label`")
    p.add_argument("--output", required=True, help="TRL stepwise JSONL")


def run(args: argparse.Namespace) -> int:
    labels = list(read_records(args.labels, StepLabels.from_dict))
    if not FORMATS[args.format] and any(len(r.labels) != len(r.scores) for r in labels):
        raise ValueError(f"{args.labels} has no binary labels yet: run `prmkit threshold` or use --format trl-soft")
    n = write_records(args.output, to_trl(read_pools(args.pools), labels, soft=FORMATS[args.format]))
    print(f"wrote {n} TRL records to {args.output}")
    return 0
