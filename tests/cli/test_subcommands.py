"""`prmkit data corrupt|synth` and `prmkit evaluate bok|processbench` are sub-commands, each with the flags of its
own config dataclass only: its help shows its own defaults, another command's flag is refused, and a `--config`
file holds the keys of that command alone. The documented command lines parse as before."""

from __future__ import annotations

import json

import pytest

from prmkit.cli.main import build_parser, main
from prmkit.train.recipe_files import RECIPES_DIR

RECIPE = RECIPES_DIR / "synth_policy.yaml"


def _help(capsys, *argv: str) -> str:
    with pytest.raises(SystemExit) as stop:
        main([*argv, "--help"])
    assert stop.value.code == 0
    return " ".join(capsys.readouterr().out.split())


def test_each_data_command_shows_only_its_own_flags(capsys):
    synth = _help(capsys, "data", "synth")
    assert "--labels LABELS StepLabels JSONL of the true labels (required)." in synth
    assert "--pools" not in synth and "benchmark.jsonl" not in synth and "--kinds" not in synth
    corrupt = _help(capsys, "data", "corrupt")
    assert "(default: 'runs/corrupt/benchmark.jsonl')" in corrupt and "--labels" not in corrupt
    listing = _help(capsys, "data")
    assert "corrupt GSM8K reference solutions" in listing and "synth synthetic arithmetic problems" in listing


def test_each_evaluate_command_shows_only_its_own_flags(capsys):
    assert "--ks" not in _help(capsys, "evaluate", "processbench")
    bok = _help(capsys, "evaluate", "bok")
    assert "--ks" in bok and "--benchmark" not in bok and "--choose-on" not in bok


@pytest.mark.parametrize("argv", [["evaluate", "processbench", "--benchmark", "b.jsonl", "--ks", "1,2"],
                                  ["evaluate", "bok", "--scores", "A=a.jsonl", "--choose-on", "0:10"],
                                  ["data", "synth", "--pools", "p.jsonl"],
                                  ["data", "corrupt", "--labels", "l.jsonl"]])
def test_another_commands_flag_is_refused(argv, capsys):
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2 and "unrecognized arguments" in capsys.readouterr().err


def test_a_config_file_holds_the_keys_of_its_command_only(tmp_path, capsys):
    conf = tmp_path / "c.yaml"
    conf.write_text("pools: p.jsonl\n")  # a field of CorruptConfig
    argv = ["data", "synth", "--config", str(conf), "--output", str(tmp_path / "p"), "--labels", str(tmp_path / "l")]
    assert main(argv) == 2
    assert "unknown keys ['pools']" in capsys.readouterr().err


def test_the_documented_command_lines_parse():
    parse = build_parser
    args = parse("data").parse_args(["data", "corrupt", "--input", "g.jsonl", "--output", "b.jsonl", "--pools",
                                     "p.jsonl", "--limit", "3"])
    assert (args.command, args.input, args.output, args.pools, args.limit) == ("corrupt", "g.jsonl", "b.jsonl",
                                                                             "p.jsonl", 3)
    args = parse("evaluate").parse_args(["evaluate", "bok", "--scores", "A=f", "--scores", "B=g", "--ks", "1,2"])
    assert (args.command, args.scores, args.ks) == ("bok", ["A=f", "B=g"], "1,2")
    args = parse("evaluate").parse_args(["evaluate", "processbench", "--benchmark", "b", "--scores", "A=f",
                                         "--choose-on", "0:2"])
    assert (args.command, args.benchmark, args.scores, args.choose_on) == ("processbench", "b", ["A=f"], "0:2")


def test_data_synth_from_the_recipe(tmp_path, capsys):
    pools, labels = tmp_path / "pools.jsonl", tmp_path / "labels.jsonl"
    assert main(["data", "synth", "--config", str(RECIPE), "--problems", "3", "--output", str(pools),
                 "--labels", str(labels)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["problems"] == 3 and len(pools.read_text().splitlines()) == 3
    assert len(labels.read_text().splitlines()) == report["traces"]
