"""An unknown flag is an error that names the closest valid flag, said before any required flag it leaves missing."""

import pytest

from prmkit.cli.main import main
from prmkit.cli.parser import suggest_flag


def _error(argv: list[str], capsys) -> str:
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    return capsys.readouterr().err.strip().splitlines()[-1]


def test_a_typo_gets_the_closest_flag(capsys):
    assert _error(["label", "--metod", "mcnig", "--input", "demo", "--output", "x.jsonl"], capsys) == (
        "prmkit label: error: unrecognized arguments: --metod (did you mean --method?)")
    assert _error(["label", "--metod=mcnig", "--input", "demo", "--output", "x.jsonl"], capsys).endswith(
        "--metod (did you mean --method?)")


def test_the_unknown_flag_comes_before_the_required_one_it_leaves_missing(capsys):
    assert _error(["label", "--method", "mcnig", "--input", "demo", "--outptu", "x"], capsys) == (
        "prmkit label: error: unrecognized arguments: --outptu (did you mean --output?); "
        "the following arguments are required: --output")


@pytest.mark.parametrize("argv, said", [
    (["evaluate", "bok", "--kz", "1"], "prmkit evaluate bok: error: unrecognized arguments: --kz (did you mean --ks?)"),
    (["--quite", "label"], "prmkit: error: unrecognized arguments: --quite (did you mean --quiet?)"),
    (["label", "--input", "demo", "--output", "x", "--zzzzzz"],
     "prmkit label: error: unrecognized arguments: --zzzzzz"),
])
def test_every_level_names_its_own_flags(argv, said, capsys):
    assert _error(argv, capsys) == said


def test_values_that_look_like_flags_are_left_alone(capsys):
    assert suggest_flag("--outptu", ["--output", "--input", "-h"]) == "--output"
    assert suggest_flag("-x", ["--output", "-h"]) is None
    assert _error(["label", "--input", "demo", "--seed", "-1"], capsys) == (  # a negative number is a value
        "prmkit label: error: the following arguments are required: --output")


@pytest.mark.parametrize("argv, said", [
    (["lable", "--method", "mcnig", "--input", "demo", "--output", "x.jsonl"],
     "prmkit: error: unknown verb 'lable'; did you mean 'label'?"),
    (["--quiet", "evalute", "bok", "--scores", "x"], "prmkit: error: unknown verb 'evalute'; did you mean 'evaluate'?"),
    (["evaluate", "bk", "--scores", "x"], "prmkit evaluate: error: unknown command 'bk'; did you mean 'bok'?"),
    (["zzzz", "--input", "demo"], "prmkit: error: unknown verb 'zzzz'; choose from data, label, threshold, export, "
                                  "export-hf, generate, rollout, verify, pum, train, sft, score, search, evaluate, "
                                  "view, rl, bench, payoff"),
])
def test_a_mistyped_verb_is_named_with_the_closest_one_not_its_flags(argv, said, capsys):
    assert _error(argv, capsys) == said
