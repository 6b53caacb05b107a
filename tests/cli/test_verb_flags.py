"""The flags of every verb and sub-command, in their --help order, against `verb_flags.txt`: a config change
that renames, drops or adds a flag (or moves one in the help) shows here. A flag added on purpose: add it to the
file (`python tests/cli/test_verb_flags.py > tests/cli/verb_flags.txt` writes it afresh)."""

import argparse
from pathlib import Path

import pytest

from prmkit.cli.main import TOP, build_parser

pytestmark = pytest.mark.usefixtures("prmkit_labelers_only")
FLAGS = Path(__file__).with_name("verb_flags.txt")


def _parsers(parser: argparse.ArgumentParser):
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                yield from _parsers(sub)


def verb_flags() -> list[str]:
    """One line per parser of a verb: its prog, then its option strings in the order they were added."""
    return [f"{p.prog}: " + " ".join(o for a in p._actions for o in a.option_strings)
            for verb in TOP for p in _parsers(build_parser(verb)) if p.prog.split()[1:2] == [verb]]


def test_every_verb_has_the_flags_it_had():
    assert verb_flags() == FLAGS.read_text(encoding="utf-8").splitlines()


if __name__ == "__main__":
    print("\n".join(verb_flags()))
