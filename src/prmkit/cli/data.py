"""`prmkit data corrupt`: a step-level benchmark with known first errors from GSM8K reference solutions;
`prmkit data synth`: synthetic arithmetic problems with checkable slips and their true step labels;
`prmkit data bench`: the step-label bench's problems, for training or held out, disjoint from other sets.

    prmkit data corrupt --input ../shared/data/gsm8k/train.jsonl --limit 300 --seed 0 \\
        --output runs/corrupt/benchmark.jsonl --pools runs/corrupt/pools.jsonl
    prmkit data synth --problems 300 --output runs/synth/pools.jsonl --labels runs/synth/labels.jsonl
    prmkit data bench --problems 60 --levels 1,2,3 --seed 22 --output runs/rl/heldout.jsonl \\
        --exclude runs/sft/p480/sft_data.jsonl
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import Any

from prmkit.cli.common import add_config_arguments, config_from_args
from prmkit.data.corrupt import CorruptConfig, write_benchmark
from prmkit.data.synthetic import SynthConfig, write_synthetic
from prmkit.experiments.bench_sets import BenchSetConfig, write_bench_set

# name -> (settings dataclass, the command, one line of help)
COMMANDS: dict[str, tuple[type, Callable[[Any], dict[str, Any]], str]] = {
    "corrupt": (CorruptConfig, write_benchmark, "GSM8K reference solutions -> first-error benchmark + pools"),
    "synth": (SynthConfig, write_synthetic, "synthetic arithmetic problems with checkable slips + true labels"),
    "bench": (BenchSetConfig, write_bench_set, "bench problems for training or held-out use, disjoint by question "
                                               "from other sets"),
}


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="what", required=True, metavar="COMMAND")
    for name, (cls, _, help_text) in COMMANDS.items():
        add_config_arguments(sub.add_parser(name, help=help_text, description=help_text), cls)


def run(args: argparse.Namespace) -> None:
    cls, command, _ = COMMANDS[args.what]
    print(json.dumps(command(config_from_args(cls, args)), indent=2))
