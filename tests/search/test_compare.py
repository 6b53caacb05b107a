"""compare_methods: accuracy intervals and the paired difference on the problems every search output holds."""

from __future__ import annotations

import json

import pytest

from prmkit.search.compare import compare_lines, compare_methods


def _write(path, right, tokens=10):
    path.write_text("".join(json.dumps({
        "problem_id": pid, "method": path.stem, "steps": ["x"], "answer": "1", "correct": ok, "score": 0.5,
        "majority_answer": "1", "majority_correct": ok, "candidates": 1, "answered": 1, "samples": 4, "stages": 1,
        "tokens_generated": tokens}) + "\n" for pid, ok in right.items()))
    return path


def test_paired_difference_on_the_common_problems(tmp_path):
    beam = _write(tmp_path / "beam.jsonl", {f"p{i}": i % 2 == 0 for i in range(40)} | {"only-beam": True}, 12)
    bon = _write(tmp_path / "bon.jsonl", {f"p{i}": i % 4 == 0 for i in range(40)}, 10)
    rows = {r["method"]: r for r in compare_methods({"beam": beam, "bon": bon}, against="bon", n_boot=500)}
    assert rows["beam"]["problems"] == rows["bon"]["problems"] == 40  # the problem only beam has is left out
    assert rows["beam"]["accuracy"] == pytest.approx(0.5) and rows["bon"]["accuracy"] == pytest.approx(0.25)
    assert rows["beam"]["difference"] == pytest.approx(0.25)
    lo, hi = rows["beam"]["difference_ci"]
    assert 0 < lo < 0.25 < hi < 0.5  # beam is never worse on a problem here, so the interval is above 0
    assert rows["beam"]["tokens_per_problem"] == 12 and "difference" not in rows["bon"]
    assert "minus bon +25.0 points" in compare_lines(list(rows.values()))[0]


def test_no_common_problem_or_unknown_baseline_is_an_error(tmp_path):
    a = _write(tmp_path / "a.jsonl", {"p1": True})
    b = _write(tmp_path / "b.jsonl", {"p2": True})
    with pytest.raises(ValueError, match="share no problem"):
        compare_methods({"a": a, "b": b})
    with pytest.raises(ValueError, match="baseline 'bon' is not one"):
        compare_methods({"a": a}, against="bon")
