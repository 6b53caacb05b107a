"""`prmkit <verb>`: the parser and the run of every verb of `prmkit.cli.verbs.VERBS` (a verb's config classes are
imported only when it runs). A refused input or a failing scorer is one line `prmkit <verb>: error: ...` (exit 2);
SIGTERM and Ctrl-C stop a verb with its cleanup run (exit 143, 130).
"""

import argparse
import importlib
import os
import signal
import sys
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

from prmkit import __version__
from prmkit.cli.common import add_config_arguments, given_settings
from prmkit.cli.parser import Parser
from prmkit.cli.verbs import GROUPS, VERBS, config_classes, run_verb, show
from prmkit.data.locks import OutputBusy
from prmkit.data.warn import PrmkitWarning
from prmkit.models.scorer import ScorerError

QUIET_HELP = "no progress bars (prmkit's, transformers' loading bars) and no transformers log below errors"
TOP = list(dict.fromkeys(name.split()[0] for name in VERBS))  # the verbs and groups of `prmkit --help`


def verb_names(verb: str) -> list[str]:
    """The names `verb` takes (a group's commands, a verb's methods or kinds), for its line in `prmkit --help`."""
    if verb in GROUPS:
        return [name.split()[1] for name in VERBS if name.split()[0] == verb]
    names = VERBS[verb].names
    if isinstance(names, str):
        module, attribute = names.split(":")
        return list(getattr(importlib.import_module(module), attribute))
    return list(names)


def verb_help(verb: str) -> str:
    names = verb_names(verb)
    return (GROUPS[verb] if verb in GROUPS else VERBS[verb].help) + (f": {' | '.join(names)}" if names else "")


def _quiet(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
    p.add_argument("--quiet", action="store_true", default=argparse.SUPPRESS, help=QUIET_HELP)
    return p


def build_parser(verb: str | None = None) -> argparse.ArgumentParser:
    """The parser of `prmkit`; the flags of `verb` alone (those of a group's every command), the others bare."""
    parser = Parser(prog="prmkit", description="Process supervision for LLM reasoning.")
    parser.add_argument("--version", action="version", version=f"prmkit {__version__}")
    parser.add_argument("--quiet", action="store_true", help=QUIET_HELP)
    sub = parser.add_subparsers(dest="verb", required=True, metavar="VERB")
    for name in TOP:
        p = _quiet(sub.add_parser(name, help=verb_help(name), description=verb_help(name)))
        commands = p.add_subparsers(dest="command", required=True, metavar="COMMAND") if name in GROUPS else None
        for full in [f"{name} {c}" for c in verb_names(name)] if commands else [name]:
            c = _quiet(commands.add_parser(full.split()[1], help=VERBS[full].help, description=VERBS[full].help)
                       ) if commands else p
            if name == verb:
                add_config_arguments(c, *config_classes(VERBS[full]))
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
    args = build_parser(verb if verb in TOP else None).parse_args(argv)
    if args.quiet:
        quiet_mode()
    name = f"{args.verb} {args.command}" if args.verb in GROUPS else args.verb
    with warnings.catch_warnings(), _stop_on_sigterm():
        _show_warnings(args.verb)
        try:
            result, configs = run_verb(name, given_settings(args), getattr(args, "config", None),
                                       progress=not args.quiet, log=lambda m: print(m, flush=True))
            if (text := show(VERBS[name])(result, *configs)) is not None:
                print(text)
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
