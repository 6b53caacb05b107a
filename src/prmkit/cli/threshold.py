"""`prmkit threshold`: choose tau by balanced accuracy on one label file and write labels into others.

    prmkit threshold --choose-on train_labels.jsonl --apply-to test_labels.jsonl

Prints, for each file, its own best tau and balanced accuracy (an upper bound: chosen on that file) and, under
"applied", the balanced accuracy at the tau written into it: for --apply-to files that is the held-out figure.
The sweep of --choose-on is saved as <file>.sweep.png.
"""

from __future__ import annotations

import argparse
import json

from prmkit.cli.common import add_config_arguments, config_from_args
from prmkit.label import ThresholdConfig, threshold_files


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_config_arguments(p, ThresholdConfig)


def run(args: argparse.Namespace) -> None:
    for summary in threshold_files(config_from_args(ThresholdConfig, args)):
        print(json.dumps(summary))
