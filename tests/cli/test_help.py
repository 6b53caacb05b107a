"""Every verb's (and sub-verb's) --help renders: help texts with a literal '%' once crashed argparse."""

import argparse

import pytest

from prmkit.cli.main import VERBS, build_parser


def parsers(parser: argparse.ArgumentParser):
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from parsers(sub)


@pytest.mark.parametrize("verb", sorted(VERBS))
def test_help_of_every_verb_renders(verb):
    found = [p for p in parsers(build_parser(verb)) if p.prog.split()[1:2] == [verb]]
    assert found, f"no parser for {verb}"
    for p in found:
        assert "--quiet" in p.format_help()
