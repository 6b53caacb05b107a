"""`prmkit score`: score every candidate trace of a pool file with a trained reward model.

    prmkit score --model runs/prm_mcnig --input ../shared/data/gsm8k/candidates_dev.jsonl \\
        --problems-range 500:660 --output runs/scores_prm_mcnig.jsonl

Appends to --output and skips traces already scored there (resumable).
"""

from __future__ import annotations

import argparse

from prmkit.cli.common import DEMO_INPUT, add_config_arguments, config_from_args
from prmkit.evaluate.score import ScoreConfig, score_file
from prmkit.models.scorer import SCORERS


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", required=True, help="checkpoint directory written by `prmkit train`, or a scorer "
                        f"spec KIND:PATH[,KEY=VALUE...], KIND one of {', '.join(SCORERS)} (truth:PROBLEMS.jsonl: "
                        "the bench's exact checker; rule: each step's own arithmetic, no PATH)")
    parser.add_argument("--input", required=True, help="Pool JSONL or GSM8K candidates_dev.jsonl" + DEMO_INPUT)
    parser.add_argument("--output", required=True, help="score JSONL (one record per trace)")
    add_config_arguments(parser, ScoreConfig)


def run(args: argparse.Namespace) -> None:
    result = score_file(args.model, args.input, args.output, config_from_args(ScoreConfig, args))
    rate = result["tokens"] / result["seconds"] if result["seconds"] else 0.0
    print(f"scored {result['written']} traces of {result['problems']} problems -> {args.output} "
          f"({result['tokens']} tokens, {rate:.0f} tok/s)")
