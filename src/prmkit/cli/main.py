"""`prmkit <verb>`: each verb is a thin module in this package with `add_arguments(parser)` and `run(args)`.

The verb table maps names to modules; a module is imported only when its verb runs.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from prmkit.data.locks import OutputBusy

VERBS: dict[str, tuple[str, str]] = {
    "data": ("prmkit.cli.data", "build data sets: corrupt = GSM8K first-error benchmark"),
    "label": ("prmkit.cli.label", "label every step of step-delimited CoTs (IG, MCNIG)"),
    "threshold": ("prmkit.cli.threshold", "choose tau by balanced accuracy and apply it to label files"),
    "export": ("prmkit.cli.export", "export pools + labels to TRL stepwise (or import TRL)"),
    "generate": ("prmkit.cli.generate", "sample K step-delimited CoTs per problem and validate them"),
    "rollout": ("prmkit.cli.rollout", "sample K validated continuations after each step prefix of each trace"),
    "verify": ("prmkit.cli.verify", "re-validate the answers of a pool file"),
    "train": ("prmkit.cli.train", "train a reward model: prm | orm | prm3"),
    "score": ("prmkit.cli.score", "score candidate traces with a reward model"),
    "search": ("prmkit.cli.search", "beam search with a step scorer (PUM sec 4.3), or best-of-N: beam | bon"),
    "evaluate": ("prmkit.cli.evaluate", "evaluate: best-of-K tables and plots"),
    "view": ("prmkit.cli.view", "one self-contained HTML page of step labels and scores per trace"),
}


def build_parser(verb: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="prmkit", description="Process supervision for LLM reasoning.")
    sub = parser.add_subparsers(dest="verb", required=True, metavar="VERB")
    for name, (module, help_text) in VERBS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        if name == verb:  # only the verb being run imports its module
            importlib.import_module(module).add_arguments(p)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    verb = next((a for a in argv if not a.startswith("-")), None)
    args = build_parser(verb if verb in VERBS else None).parse_args(argv)
    module = importlib.import_module(VERBS[args.verb][0])
    try:
        return int(module.run(args) or 0)
    except (FileNotFoundError, ValueError, OutputBusy) as e:
        print(f"prmkit {args.verb}: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
