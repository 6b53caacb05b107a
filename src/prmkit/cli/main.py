"""`prmkit <verb>`: each verb is a thin module in this package with `add_arguments(parser)` and `run(args)`.

The verb table maps names to modules; a module is imported only when its verb runs. Flags every verb has:
`--quiet` (no progress bars, prmkit's or transformers'; before or after the verb, and after a sub-command such as
`prmkit data synth`) and `--config FILE.yaml`. `prmkit --version` prints the version. An unknown flag is an error
with the closest valid flag ("did you mean --method?"), said before any missing required flag (`cli/parser.py`).
Warnings (`prmkit.data.warn.PrmkitWarning`) are printed on stderr as `prmkit <verb>: warning: ...`, quiet or not.
A refused input, or a scorer that fails (`ScorerError`), is one line `prmkit <verb>: error: ...` (exit 2). SIGTERM and
Ctrl-C stop a verb where it is, its cleanup run (output locks let go): `prmkit <verb>: stopped (SIGTERM)`, exit 143
(130).

The help of a verb that takes names (sub-commands, methods, kinds) lists them from their registry (`NAMES`), so it
cannot fall behind the registry.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
import threading
import types
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

from prmkit import __version__
from prmkit.cli.parser import Parser
from prmkit.data.locks import OutputBusy
from prmkit.data.warn import PrmkitWarning
from prmkit.models.scorer import ScorerError

# verb -> its summary; the verb's module is prmkit.cli.<verb, '-' as '_'> (`verb_module`)
VERBS: dict[str, str] = {
    "data": "build data sets",
    "label": "label every step of step-delimited CoTs, by method",
    "threshold": "choose tau by balanced accuracy and apply it to label files",
    "export": "export pools + labels to TRL stepwise (JSONL or parquet)",
    "export-hf": "export a reward model as a standard token-classification model (transformers, vLLM)",
    "generate": "sample K step-delimited CoTs per problem and validate them",
    "rollout": "sample K validated continuations after each step prefix of each trace",
    "verify": "re-validate the answers of a pool file",
    "pum": "PUM preference pairs from student rollouts (prefix gain, pum_paper sec 3)",
    "train": "train a reward model",
    "sft": "supervised warm start of the bench's policy on right traces of bench problems (TRL SFTTrainer)",
    "score": "score candidate traces with a reward model",
    "search": "beam search guided by a step scorer (PUM sec 4.3), or best-of-N at its budget",
    "evaluate": "evaluate score files",
    "view": "one self-contained HTML page of step labels and scores per trace",
    "rl": "train a policy on outcome and process rewards (PSPO-WRS, PUM/PRM)",
    "bench": "the step-label bench: every labeler against exact step truth, with its cost",
    "payoff": "do a labeler's labels pay off: its reward model in best-of-K on fresh problems",
}
# The names a verb takes, for its line in `prmkit --help`: "module:attribute" of a registry that is light to import
# (no torch, no transformers), or the names themselves where the registry's module is heavy. tests/cli/test_main.py
# checks both: the light imports stay light and each list of names equals its registry.
NAMES: dict[str, str | tuple[str, ...]] = {
    "data": "prmkit.cli.data:COMMANDS",
    "label": "prmkit.label.registry:LABELERS",
    "train": ("prm", "orm", "prm3", "bt", "pum"),  # prmkit.models.heads.HEADS + prmkit.train.run.KIND_ALIASES
    "search": "prmkit.search:METHODS",
    "evaluate": ("bok", "processbench"),  # prmkit.cli.evaluate.WHAT
    "rl": "prmkit.cli.rl:COMMANDS",
    "bench": "prmkit.label.registry:LABELERS",  # the labelers a bench runs are prmkit label's methods
    "payoff": "prmkit.cli.payoff:COMMANDS",
}
QUIET_HELP = "no progress bars (prmkit's, transformers' loading bars) and no transformers log below errors"


def verb_names(verb: str) -> list[str]:
    """The names `verb` takes (sub-commands, methods, kinds) from `NAMES`; [] for a verb that takes none."""
    source = NAMES.get(verb, ())
    if isinstance(source, str):
        module, attribute = source.split(":")
        return list(getattr(importlib.import_module(module), attribute))
    return list(source)


def verb_module(verb: str) -> types.ModuleType:
    """The module of `verb` (imported now): `prmkit.cli.export_hf` for `export-hf`."""
    return importlib.import_module(f"prmkit.cli.{verb.replace('-', '_')}")


def verb_help(verb: str) -> str:
    """The verb's line in `prmkit --help`: its summary, then the names it takes (`prmkit data`: corrupt | synth)."""
    names = verb_names(verb)
    return VERBS[verb] + (f": {' | '.join(names)}" if names else "")


def _add_quiet(parser: argparse.ArgumentParser) -> None:
    """`--quiet` on a verb's parser and on every sub-command parser under it (`prmkit data synth --quiet`); the
    top-level flag holds the default."""
    parser.add_argument("--quiet", action="store_true", default=argparse.SUPPRESS, help=QUIET_HELP)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):  # aliases map to the same parser
                _add_quiet(sub)


def build_parser(verb: str | None = None) -> argparse.ArgumentParser:
    parser = Parser(prog="prmkit", description="Process supervision for LLM reasoning.")
    parser.add_argument("--version", action="version", version=f"prmkit {__version__}")
    parser.add_argument("--quiet", action="store_true", help=QUIET_HELP)
    sub = parser.add_subparsers(dest="verb", required=True, metavar="VERB")
    for name in VERBS:
        help_text = verb_help(name)
        p = sub.add_parser(name, help=help_text, description=help_text)
        if name == verb:  # only the verb being run imports its module
            verb_module(name).add_arguments(p)
        _add_quiet(p)
    return parser


def quiet_mode() -> None:
    """Silence every progress bar: tqdm's (prmkit, datasets), Hugging Face's, transformers' loading bars."""
    os.environ["TQDM_DISABLE"] = "1"
    os.environ["HF_HUB_DISABLE_PROGRESS_BARS"] = "1"
    os.environ["TRANSFORMERS_VERBOSITY"] = "error"
    if "transformers" in sys.modules:  # set at import otherwise, from the variables above
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
        hf_logging.set_verbosity_error()


def _show_warnings(verb: str) -> None:
    """Print prmkit's warnings as `prmkit <verb>: warning: ...` on stderr, every one (no de-duplication)."""
    default = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None):
        if issubclass(category, PrmkitWarning):
            print(f"prmkit {verb}: warning: {message}", file=sys.stderr, flush=True)
        else:
            default(message, category, filename, lineno, file, line)

    warnings.showwarning = show
    warnings.simplefilter("always", PrmkitWarning)


class Stopped(BaseException):
    """SIGTERM, raised where the run is (a socket read, a forward pass), so that every `finally` runs: the output
    locks are let go and append-only outputs closed, as after Ctrl-C."""


@contextmanager
def _stop_on_sigterm() -> Iterator[None]:
    """SIGTERM raises `Stopped` in this process (a forked child keeps the default: it dies at once)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pid = os.getpid()

    def stop(signum: int, frame: object) -> None:
        if os.getpid() != pid:
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
        raise Stopped("SIGTERM")

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    verb = next((a for a in argv if not a.startswith("-")), None)
    options = argv[: argv.index("--")] if "--" in argv else argv  # a `--` ends them
    if "--quiet" in options:  # before the verb's module is imported: tqdm reads TQDM_DISABLE once, when imported
        quiet_mode()
    args = build_parser(verb if verb in VERBS else None).parse_args(argv)
    if args.quiet:
        quiet_mode()
    module = verb_module(args.verb)
    with warnings.catch_warnings(), _stop_on_sigterm():
        _show_warnings(args.verb)
        try:
            module.run(args)
            return 0
        except (KeyboardInterrupt, Stopped) as e:  # its locks are let go, what it wrote is kept
            print(f"prmkit {args.verb}: stopped ({e or 'Ctrl-C'})", file=sys.stderr)
            return 143 if isinstance(e, Stopped) else 130
        except (FileNotFoundError, ValueError, OutputBusy, ScorerError) as e:
            print(f"prmkit {args.verb}: error: {e}", file=sys.stderr)
            return 2
        except OSError as e:  # a directory where a file goes, no permission, a full disk: one line, not a traceback
            where = f": {e.filename}" if e.filename else ""
            print(f"prmkit {args.verb}: error: {e.strerror or e}{where}", file=sys.stderr)
            return 2


if __name__ == "__main__":
    raise SystemExit(main())
