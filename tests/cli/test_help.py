"""Every verb's (and sub-verb's) --help renders: help texts with a literal '%' once crashed argparse."""

import argparse
import re

import pytest

from prmkit.cli.main import TOP, build_parser


def parsers(parser: argparse.ArgumentParser):
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from parsers(sub)


@pytest.mark.parametrize("verb", sorted(TOP))
def test_help_of_every_verb_renders(verb):
    found = [p for p in parsers(build_parser(verb)) if p.prog.split()[1:2] == [verb]]
    assert found, f"no parser for {verb}"
    for p in found:
        assert "--quiet" in p.format_help()


def _flag_helps():
    for verb in sorted(TOP):
        for p in parsers(build_parser(verb)):
            for action in p._actions:
                if action.option_strings and action.help:
                    yield p.prog, action.option_strings[0], action.help


def _says_twice(text: str) -> bool:
    """A "(default: X)" after a help that calls the field required or gives its default, or a "(default: None)"
    after one that says what None (unset, the default) means."""
    if " (default: " not in text:
        return False
    before = text[: text.index(" (default: ")]
    if re.search(r"\brequired\b|default:", before, re.IGNORECASE):
        return True
    return text.endswith("(default: None)") and re.search(r"\b(None|unset|default)\b", before) is not None


def test_no_flag_states_its_default_twice_or_for_a_required_field():
    assert [(prog, flag, text) for prog, flag, text in _flag_helps() if _says_twice(text)] == []


def test_required_fields_and_none_defaults_read_right():
    helps = {(prog, flag): text for prog, flag, text in _flag_helps()}
    assert helps["prmkit data synth", "--labels"] == "StepLabels JSONL of the true labels (required)."
    assert helps["prmkit label", "--tau"] == "fixed threshold; default: best balanced acc."
    assert helps["prmkit evaluate bok", "--ks"].endswith("(default: 1, 2, 4, ... up to the smallest pool)")
    assert helps["prmkit label", "--limit"] == "label only the first N problems (default: None)"
    assert helps["prmkit view", "--labels"].endswith("; repeatable (default: [])")


def test_label_method_help_names_every_labeler():
    from prmkit.label.registry import LABELERS

    (method,) = [text for prog, flag, text in _flag_helps() if flag == "--method"]
    assert "LABELERS" not in method and all(name in method for name in LABELERS)


@pytest.mark.parametrize("verb", ["label", "score"])
def test_input_help_names_the_demo_pools_as_they_are(verb):
    from prmkit.data.demo_pools import demo_pools

    helps = {(prog, flag): text for prog, flag, text in _flag_helps()}
    assert "or `demo`: the built-in demo pools (20 small arithmetic problems" in helps[f"prmkit {verb}", "--input"]
    pools = demo_pools()
    assert len(pools) == 20 and all(sorted(t.correct for t in p.traces) == [False] * 3 + [True] for p in pools)


def test_every_aggregation_help_lists_the_names_of_its_registry():
    """The step-score aggregations (models.AGGREGATIONS) were never listed in any help: `score`, `search` and
    `train` said "a name in AGGREGATIONS"; `evaluate bok` listed them by hand. Each lists its registry now, and
    `label`'s MCNIG answer-set aggregation its own."""
    from prmkit.label.mcnig import ANSWER_SET_AGGREGATIONS
    from prmkit.models.aggregate import AGGREGATIONS

    helps = {prog: text for prog, flag, text in _flag_helps() if flag == "--aggregation"}
    assert {"prmkit score", "prmkit evaluate bok", "prmkit search", "prmkit train", "prmkit label"} <= set(helps)
    for prog, text in helps.items():
        names = ANSWER_SET_AGGREGATIONS if prog == "prmkit label" else AGGREGATIONS
        assert " | ".join(names) in text and "a name in AGGREGATIONS" not in text, prog
