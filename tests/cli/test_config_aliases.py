"""K is `k` in every config; `rollouts`, its old name in the rollout labelers and PUM, still works as a deprecated
alias: the flag `--rollouts` of `prmkit label` and `prmkit pum`, a `rollouts:` key of a `--config` file and the
keyword `rollouts=` of the Python API each set `k`, with a one-line note on stderr."""

from __future__ import annotations

import argparse
import importlib

import pytest

import prmkit
from prmkit.cli.common import config_from_args, given_settings
from prmkit.cli.main import build_parser, main
from prmkit.data.settings import field_aliases, resolve_aliases
from prmkit.label.pum import PumConfig
from prmkit.label.rollout_labeling import RolloutLabelConfig

VERBS = {"label": (RolloutLabelConfig, ["--input", "demo", "--output", "o.jsonl", "--method", "math-shepherd"]),
         "pum": (PumConfig, ["--input", "demo", "--output-dir", "out"])}


@pytest.mark.parametrize("verb", sorted(VERBS))
def test_the_rollouts_flag_sets_k_with_a_note(verb, capsys):
    cls, required = VERBS[verb]
    args = build_parser(verb).parse_args([verb, *required, "--rollouts", "3"])
    assert config_from_args(cls, args).k == 3 and given_settings(args)["k"] == 3
    assert capsys.readouterr().err == f"prmkit {verb}: note: --rollouts is deprecated, use --k (the same setting)\n"
    args = build_parser(verb).parse_args([verb, *required, "--k", "5"])
    assert config_from_args(cls, args).k == 5 and capsys.readouterr().err == ""
    assert config_from_args(cls, build_parser(verb).parse_args([verb, *required])).k == 8  # the default as before


@pytest.mark.parametrize("verb", sorted(VERBS))
def test_a_rollouts_key_of_a_config_file_sets_k(verb, tmp_path, capsys):
    cls, required = VERBS[verb]
    conf = tmp_path / "run.yaml"
    conf.write_text("rollouts: 4\n")
    args = build_parser(verb).parse_args([verb, *required, "--config", str(conf)])
    assert config_from_args(cls, args).k == 4
    assert capsys.readouterr().err == f"{conf}: note: 'rollouts' is deprecated, use 'k' (the same setting)\n"
    args = build_parser(verb).parse_args([verb, *required, "--config", str(conf), "--k", "6"])
    assert config_from_args(cls, args).k == 6  # a flag still wins over the file
    conf.write_text("rollouts: 4\nk: 4\n")
    with pytest.raises(ValueError, match="'rollouts' is a deprecated name of 'k': give one of them, not both"):
        config_from_args(cls, build_parser(verb).parse_args([verb, *required, "--config", str(conf)]))


def _verb_parser(verb: str) -> argparse.ArgumentParser:
    (sub,) = [a for a in build_parser(verb)._actions if isinstance(a, argparse._SubParsersAction)]
    return sub.choices[verb]


def test_only_the_verbs_that_called_k_rollouts_take_the_alias():
    assert all("--rollouts" not in _verb_parser(v)._option_string_actions for v in ("generate", "rollout", "search"))
    helps = {a.option_strings[0]: a.help for a in _verb_parser("label")._actions if a.option_strings}
    assert helps["--rollouts"] == "deprecated name of --k"
    assert helps["--k"] == "Math-Shepherd/OmegaPRM: completions M per prefix (default: 8)"


def test_the_api_keyword_rollouts_sets_k(monkeypatch, tmp_path, capsys):
    seen = []
    monkeypatch.setattr(importlib.import_module("prmkit.label.pum"), "label_pum",
                        lambda pools, config, *a, **kw: seen.append(config) or {})
    prmkit.pum("demo", tmp_path, problems_range="0:1", rollouts=2)
    prmkit.pum("demo", tmp_path, problems_range="0:1", k=3)
    assert [c.k for c in seen] == [2, 3]
    assert capsys.readouterr().err == "prmkit: note: 'rollouts' is deprecated, use 'k' (the same setting)\n"
    with pytest.raises(ValueError, match="not both"):
        prmkit.pum("demo", tmp_path, rollouts=2, k=2)


def test_resolve_aliases_leaves_other_settings_alone(capsys):
    assert field_aliases([RolloutLabelConfig]) == field_aliases([PumConfig]) == {"rollouts": "k"}
    assert resolve_aliases({"temperature": 0.5}, [PumConfig]) == {"temperature": 0.5}
    assert resolve_aliases({"rollouts": 2, "seed": 1}, [PumConfig], "x") == {"seed": 1, "k": 2}
    assert capsys.readouterr().err == "x: note: 'rollouts' is deprecated, use 'k' (the same setting)\n"


def test_the_label_verb_runs_with_rollouts(monkeypatch, tmp_path, capsys):
    """`prmkit label --rollouts` (README, docs/results.md) reaches the rollout labeler as K."""
    import prmkit.cli.label as cli

    seen = []
    monkeypatch.setattr(cli, "label_pools", lambda pools, config, output, settings, **kw: seen.extend(settings) or {})
    assert main(["label", "--method", "math-shepherd", "--input", "demo", "--rollouts", "2",
                 "--output", str(tmp_path / "o.jsonl")]) == 0
    (rollout,) = [s for s in seen if type(s) is RolloutLabelConfig]
    assert rollout.k == 2 and rollout.params("math-shepherd")["rollouts"] == 2  # the records' name of K is kept
