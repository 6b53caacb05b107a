"""`prmkit rl compare`: settings' runs side by side, the paired difference from the baseline, bad input."""

from __future__ import annotations

import json

import pytest

from prmkit.cli.main import main
from prmkit.rl.compare import compare_runs, parse_groups


def _run(path, curve: dict[int, list[int]], samples_per_problem: int = 2, answered: float = 0.5, data="h.jsonl"):
    """A run directory as `prmkit rl grpo --heldout-steps` leaves it: its held-out lines and its report."""
    path.mkdir(parents=True)
    with (path / "heldout.jsonl").open("w") as fh:
        for step, right in curve.items():
            n = len(right) * samples_per_problem
            fh.write(json.dumps({"step": step, "accuracy": sum(right) / n, "greedy_accuracy": 0.5,
                                 "answered": answered, "steps": 2.0, "samples": n, "tokens": 10, "seconds": 1.0,
                                 "right": right, "greedy_right": [1, 0] * (len(right) // 2)}) + "\n")
    (path / "report.json").write_text(json.dumps({"config": {"heldout_data": data, "heldout_range": "0:4"},
                                                  "train_seconds": 12.3, "generated_tokens": 456}))
    return str(path)


def test_the_difference_is_paired_by_problem_and_averaged_over_seeds(tmp_path):
    base = [_run(tmp_path / "o0", {0: [1, 1, 0, 0], 10: [1, 1, 0, 0]}),
            _run(tmp_path / "o1", {0: [1, 1, 0, 0], 10: [2, 1, 0, 0]})]
    other = [_run(tmp_path / "p0", {0: [1, 1, 0, 0], 10: [2, 2, 1, 0], 20: [2, 2, 2, 2]}, answered=0.9)]
    result = compare_runs({"outcome": base, "pum": other}, tmp_path / "cmp", bootstrap=200)
    assert result["step"] == 10  # the last step every run reached
    rows = {r["setting"]: r for r in result["rows"]}
    # per problem: outcome (1 + 2) / 2 / 2 = 0.75, 0.5, 0, 0; pum 1, 1, 0.5, 0 -> differences 0.25, 0.5, 0.5, 0
    assert rows["pum"]["minus_baseline"] == pytest.approx(0.3125)
    assert rows["pum"]["minus_baseline_low"] <= 0.3125 <= rows["pum"]["minus_baseline_high"]
    assert rows["outcome"]["minus_baseline"] is None
    # gain over training, paired: pum's problems 1, 1, 0.5, 0 at step 10 against 0.5, 0.5, 0, 0 at step 0
    assert rows["pum"]["gain"] == pytest.approx(0.375) and rows["outcome"]["gain"] == pytest.approx(0.0625)
    assert rows["outcome"]["accuracy"] == pytest.approx((2 / 8 + 3 / 8) / 2)
    assert (rows["outcome"]["accuracy_min"], rows["outcome"]["accuracy_max"]) == (2 / 8, 3 / 8)
    assert rows["pum"]["answered"] == 0.9 and rows["pum"]["generated_tokens"] == [456]
    assert [r["step"] for r in result["curves"]["pum"]] == [0, 10]
    assert "| pum | 1 |" in (tmp_path / "cmp" / "compare.md").read_text()
    assert (tmp_path / "cmp" / "compare.png").stat().st_size > 1000


def test_cli_and_bad_input(tmp_path, capsys):
    a = _run(tmp_path / "a", {0: [1, 0], 5: [1, 1]})
    b = _run(tmp_path / "b", {0: [0, 0], 5: [2, 1]})
    assert main(["rl", "compare", f"x={a}", f"y={b}", "--output", str(tmp_path / "out")]) == 0
    assert "minus baseline" in capsys.readouterr().out
    import prmkit

    prmkit.api.rl_compare([f"x={a}", f"y={b}"], tmp_path / "api")
    assert (tmp_path / "api" / "compare.json").read_text() == (tmp_path / "out" / "compare.json").read_text()
    c = _run(tmp_path / "c", {0: [1, 0, 0, 0]})  # another number of held-out problems
    with pytest.raises(ValueError, match="different numbers of held-out problems"):
        compare_runs({"x": [a], "z": [c]})
    d = _run(tmp_path / "d", {0: [1, 0], 5: [1, 1]}, data="other.jsonl")
    with pytest.raises(ValueError, match="different held-out problems"):
        compare_runs({"x": [a], "d": [d]})
    with pytest.raises(FileNotFoundError, match=r"no heldout\.jsonl"):
        compare_runs({"x": [str(tmp_path)]})
    for bad in (["x"], ["x=a", "x=b"], []):
        with pytest.raises(ValueError):
            parse_groups(bad)
