"""`prmkit score`: score every candidate trace of a pool file with a trained reward model.

    prmkit score --model runs/prm_mcnig --input ../shared/data/gsm8k/candidates_dev.jsonl \\
        --problems-range 500:660 --output runs/scores_prm_mcnig.jsonl

Appends to --output and skips traces already scored there (resumable).
"""

from __future__ import annotations

import argparse

from prmkit.evaluate.aggregate import AGGREGATIONS


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", required=True, help="checkpoint directory written by `prmkit train`")
    parser.add_argument("--input", required=True, help="Pool JSONL or GSM8K candidates_dev.jsonl")
    parser.add_argument("--output", required=True, help="score JSONL (one record per trace)")
    parser.add_argument("--problems-range", help="problems by index in --input, e.g. 500:660")
    parser.add_argument("--aggregation", choices=list(AGGREGATIONS), help="default: the checkpoint's (prod)")
    parser.add_argument("--max-tokens", type=int, default=4096, help="padded tokens per forward pass")
    parser.add_argument("--threads", type=int, default=0, help="torch CPU threads (0 = default)")


def run(args: argparse.Namespace) -> int:
    import torch

    from prmkit.data.jsonl import AppendOnlyWriter
    from prmkit.evaluate.score import score_pools
    from prmkit.train.data import read_pools, select_range
    from prmkit.train.model import PRM

    if args.threads:
        torch.set_num_threads(args.threads)
    prm = PRM.from_pretrained(args.model)
    pools = select_range(read_pools(args.input), args.problems_range)
    stats: dict = {}
    with AppendOnlyWriter(args.output) as writer:
        n = sum(writer.write(rec) for rec in score_pools(prm, pools, args.aggregation, args.max_tokens,
                                                         skip=set(writer.done), stats=stats))
    rate = stats["tokens"] / stats["seconds"] if stats.get("seconds") else 0.0
    print(f"scored {n} traces of {len(pools)} problems -> {args.output} ({stats.get('tokens', 0)} tokens, "
          f"{rate:.0f} tok/s)")
    return 0
