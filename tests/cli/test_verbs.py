"""The verb table is the one declaration of every verb: what it names exists, and the CLI and the API are built from
it (a field of a verb's configs is a flag of `prmkit <verb>` and a keyword of `prmkit.api`)."""

from __future__ import annotations

import argparse
import inspect

import pytest

import prmkit
from prmkit.cli.main import build_parser
from prmkit.cli.verbs import VERBS, config_classes, show
from prmkit.data.settings import config_fields


def _parser(name: str) -> argparse.ArgumentParser:
    parser, words = build_parser(name.split()[0]), name.split()
    for word in words:
        (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        parser = sub.choices[word]
    return parser


@pytest.mark.parametrize("name", list(VERBS))
def test_each_verb_is_declared_whole(name):
    verb = VERBS[name]
    classes = config_classes(verb)
    settings = [s for cls in classes for s in config_fields(cls)]
    assert classes and callable(verb.load(verb.run)) and callable(show(verb))
    assert set(verb.args) <= {s.name for s in settings}, f"{name}: args {verb.args} are not all fields"
    assert all(s.help for s in settings), f"{name}: a field without help"
    positional = [s.name for s in settings if s.field.metadata.get("positional")]
    assert positional == [a for a in verb.args if a in positional]


@pytest.mark.parametrize("name", list(VERBS))
def test_the_flags_and_the_api_are_the_configs_fields(name):
    verb = VERBS[name]
    parser = _parser(name)
    dests = {a.dest for a in parser._actions} - {"help", "config", "quiet", "command"}
    assert dests == {s.name for cls in config_classes(verb) for s in config_fields(cls)}
    function = getattr(prmkit.api, verb.api or name.replace("-", "_"))
    assert list(inspect.signature(function).parameters) == [*verb.args, "config", "settings"]


def test_an_unknown_keyword_is_refused_by_name():
    with pytest.raises(TypeError, match="unknown settings"):
        prmkit.api.view(pool="demo")


def test_the_api_reads_a_mapping_a_list_and_pools_in_hand(tmp_path, tiny_base):
    from prmkit.data.settings import build_config
    from prmkit.evaluate.run import BokConfig

    cfg = build_config(BokConfig, {}, {"scores": {"PRM": tmp_path / "s.jsonl"}, "ks": [1, 4]})
    assert (cfg.scores, cfg.ks) == ([f"PRM={tmp_path / 's.jsonl'}"], "1,4")
    with pytest.raises(ValueError, match="--input is required"):
        prmkit.api.label(output=str(tmp_path / "l.jsonl"))
    pools = prmkit.api.read_pools("demo")[:1]
    reports = prmkit.api.label(output=str(tmp_path / "l.jsonl"), pools=pools, method="ig", model=tiny_base,
                               progress=False)
    assert reports["ig"].traces == len(pools[0].traces)
