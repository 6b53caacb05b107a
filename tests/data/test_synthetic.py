"""`prmkit data synth`: slips that the text shows, true labels, demo problems held out, bad settings refused."""

from __future__ import annotations

import json
import random
import re

import pytest

from prmkit.cli.main import main
from prmkit.data.demo_problems import demo_problems
from prmkit.data.synthetic import SLIPS, SynthConfig, build_synthetic, solve_with_slip


def _check_row(a: int, op: str, b: int, r: int) -> bool:
    return {"+": a + b, "-": a - b, "*": a * b, "/": a // b}[op] == r


def test_labels_are_the_truth_of_each_step():
    pools, labels, report = build_synthetic(SynthConfig(problems=60, seed=3))
    by_id = {s.trace_id: s for s in labels}
    assert report["problems"] == 60 and report["traces"] == 240 == len(labels)
    for pool in pools:
        for trace in pool.traces:
            truth = by_id[trace.id]
            assert len(truth.labels) == len(trace.steps) and truth.correct == trace.correct
            assert truth.labels[-1] == int(trace.correct) and trace.steps[-1].startswith("The answer is")
            # once a step is wrong every later step is 0; a correct trace is all 1
            assert truth.labels == sorted(truth.labels, reverse=True)
            assert all(truth.labels) == trace.correct
    correct = [t for p in pools for t in p.traces if t.correct]
    assert len(correct) == 60  # one right trace per problem, every slip changes the answer


@pytest.mark.parametrize("style", ["plain", "policy"])
def test_steps_labeled_right_hold_right_computations(style):
    pools, labels, _ = build_synthetic(SynthConfig(problems=80, seed=5, style=style, slips=",".join(SLIPS)))
    by_id = {s.trace_id: s for s in labels}
    forms = {"merged": 0, "restated": 0, "answer equation": 0, "misstated": 0}
    for pool in pools:
        for trace in pool.traces:
            truth = by_id[trace.id]
            assert len(truth.labels) == len(trace.steps) and truth.labels[-1] == int(trace.correct)
            assert truth.labels == sorted(truth.labels, reverse=True) and all(truth.labels) == trace.correct
            assert (truth.params.get("slip") is None) == trace.correct  # the slip's kind is kept for analyses
            for step, label in zip(trace.steps, truth.labels, strict=True):
                rows = re.findall(r"(-?\d+) ([-+*/]) (\d+) = (-?\d+)", step)
                if label:
                    assert all(_check_row(int(a), o, int(b), int(r)) for a, o, b, r in rows), step
                forms["merged"] += len(rows) == 2
                forms["restated"] += not rows and not step.startswith("The answer")
                forms["misstated"] += not rows and not step.startswith("The answer") and not label
                forms["answer equation"] += bool(rows) and step.startswith("The answer")
    if style == "plain":
        assert forms == {"merged": 0, "restated": 0, "answer equation": 0, "misstated": 0}
    else:
        assert all(n > 5 for n in forms.values()), forms
        wrong = " ".join(step for p in pools for t in p.traces if not t.correct for step in t.steps)
        assert set(re.findall(r" ([-+*/]) ", wrong)) == {"+", "-", "*", "/"}


def test_each_slip_kind_shows_in_the_text():
    rng = random.Random(0)
    ops = [("+", 14), ("-", 2)]
    rows, labels, _ = solve_with_slip(29, ops, (0, "arithmetic"), rng)
    assert not _check_row(*rows[0]) and labels == [0, 0]
    rows, labels, _ = solve_with_slip(29, ops, (1, "operand"), rng)
    assert rows[1][2] != 2 and _check_row(*rows[1]) and labels == [1, 0]
    rows, _, value = solve_with_slip(29, ops, None, rng)
    assert value == 41 and all(_check_row(*r) for r in rows)
    for seed in range(20):  # every row right, another number reported
        rows, labels, value = solve_with_slip(29, ops, (0, "answer"), random.Random(seed))
        assert all(_check_row(*r) for r in rows) and labels == [1, 1] and value != 41


@pytest.mark.parametrize("kind", ["extra", "drop", "pairing"])
def test_structural_slips_compute_right_but_not_what_is_asked(kind):
    ops = [("+", 8), ("-", 4)]  # 19 + 8 - 4 = 23
    for seed in range(30):
        rows, labels, value = solve_with_slip(19, ops, (seed % 2, kind), random.Random(seed))
        assert all(_check_row(*r) for r in rows) and value != 23 and len(labels) == len(rows)
        assert {"extra": 3, "drop": 1, "pairing": 2}[kind] == len(rows)
        if kind == "pairing":
            assert rows[1][:3] == (19, "-", 4) and labels == [1, 0]
        if kind == "drop":
            assert value == 27 and labels == [1]  # right so far, the answer line is wrong
        if kind == "extra":
            assert labels == [1, 1, 0] and rows[2][0] == 23
    # one operation: nothing to drop or pair, one computation too many instead
    rows, labels, value = solve_with_slip(6, [("*", 3)], (0, "drop"), random.Random(0))
    assert len(rows) == 2 and labels == [1, 0] and value != 18 and _check_row(*rows[1])


def test_demo_problems_stay_held_out_and_same_seed_same_data():
    held = {p.question for p in demo_problems(200, 0)}
    pools, _, report = build_synthetic(SynthConfig(problems=100, seed=0, exclude_demo=200))
    assert not {p.problem.question for p in pools} & held and report["skipped_as_held_out"] > 0
    again, _, _ = build_synthetic(SynthConfig(problems=100, seed=0, exclude_demo=200))
    assert [p.to_dict() for p in again] == [p.to_dict() for p in pools]


def test_bad_settings_are_refused_and_the_cli_writes_both_files(tmp_path, capsys):
    with pytest.raises(ValueError, match="unknown slip kind"):
        SynthConfig(slips="arithmetic,typo")
    with pytest.raises(ValueError, match="unknown style"):
        SynthConfig(style="fancy")
    assert main(["data", "synth", "--problems", "4", "--slips", "operand", "--output", str(tmp_path / "p.jsonl"),
                 "--labels", str(tmp_path / "l.jsonl")]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["traces"] == 16 == len((tmp_path / "l.jsonl").read_text().splitlines())
    assert len((tmp_path / "p.jsonl").read_text().splitlines()) == 4
