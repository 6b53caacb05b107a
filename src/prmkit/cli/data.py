"""`prmkit data corrupt`: a step-level benchmark with known first errors from GSM8K reference solutions.

    prmkit data corrupt --input ../shared/data/gsm8k/train.jsonl --limit 300 --seed 0 \\
        --output runs/corrupt/benchmark.jsonl --pools runs/corrupt/pools.jsonl
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import Any

from prmkit.cli.common import add_config_arguments, config_from_args
from prmkit.data.corrupt import CorruptConfig, write_benchmark

COMMANDS: dict[str, tuple[type, Callable[[Any], dict[str, Any]]]] = {
    "corrupt": (CorruptConfig, write_benchmark),
}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("what", choices=list(COMMANDS), help="corrupt: GSM8K references -> first-error benchmark + pools")
    add_config_arguments(p, *dict.fromkeys(cls for cls, _ in COMMANDS.values()))


def run(args: argparse.Namespace) -> int:
    cls, command = COMMANDS[args.what]
    print(json.dumps(command(config_from_args(cls, args)), indent=2))
    return 0
