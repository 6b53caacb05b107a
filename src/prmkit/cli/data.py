"""`prmkit data corrupt`: a step-level benchmark with known first errors from GSM8K reference solutions;
`prmkit data synth`: synthetic arithmetic problems with checkable slips and their true step labels.

    prmkit data corrupt --input ../shared/data/gsm8k/train.jsonl --limit 300 --seed 0 \\
        --output runs/corrupt/benchmark.jsonl --pools runs/corrupt/pools.jsonl
    prmkit data synth --problems 300 --output runs/synth/pools.jsonl --labels runs/synth/labels.jsonl
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import Any

from prmkit.cli.common import add_config_arguments, config_from_args
from prmkit.data.corrupt import CorruptConfig, write_benchmark
from prmkit.data.synthetic import SynthConfig, write_synthetic

COMMANDS: dict[str, tuple[type, Callable[[Any], dict[str, Any]]]] = {
    "corrupt": (CorruptConfig, write_benchmark),
    "synth": (SynthConfig, write_synthetic),
}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("what", choices=list(COMMANDS), help="corrupt: GSM8K references -> first-error benchmark + pools; "
                                                          "synth: arithmetic problems with slips + true labels")
    add_config_arguments(p, *dict.fromkeys(cls for cls, _ in COMMANDS.values()))


def run(args: argparse.Namespace) -> int:
    cls, command = COMMANDS[args.what]
    print(json.dumps(command(config_from_args(cls, args)), indent=2))
    return 0
