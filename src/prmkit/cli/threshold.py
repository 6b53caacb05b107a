"""`prmkit threshold`: choose tau by balanced accuracy on one label file and write labels into others.

    prmkit threshold --choose-on train_labels.jsonl --apply-to test_labels.jsonl

Prints, for each file, its own best tau and balanced accuracy (an upper bound: chosen on that file) and, under
"applied", the balanced accuracy at the tau written into it: for --apply-to files that is the held-out figure.
The sweep of --choose-on is saved as <file>.sweep.png.
"""

from __future__ import annotations

import argparse
import json

from prmkit.label.runner import apply_threshold


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--choose-on", required=True, help="StepLabels file to choose tau on (its labels are rewritten)")
    p.add_argument("--apply-to", nargs="*", default=[], help="further StepLabels files to label with that tau")
    p.add_argument("--tau", type=float, help="use this tau instead of choosing one")
    p.add_argument("--include-final", action="store_true", help="the CoT check includes the final step")


def run(args: argparse.Namespace) -> int:
    chosen = apply_threshold(args.choose_on, args.tau, exclude_final=not args.include_final)
    tau = chosen["applied"]["tau"]
    print(json.dumps({"choose_on": args.choose_on} | chosen))
    for path in args.apply_to:  # report accuracy there at the fixed tau (an honest held-out figure)
        held = apply_threshold(path, tau, exclude_final=not args.include_final, plot=False)
        print(json.dumps({"apply_to": path} | held))
    return 0
