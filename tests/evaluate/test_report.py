import json

import pytest

from prmkit.evaluate.report import bok_report, format_table


def scores_file(path, scores: list[float], ids: list[str] | None = None) -> str:
    answers, correct = ["5", "7", "7", "5"], [False, True, True, False]
    ids = ids or [f"p/{k}" for k in range(4)]
    path.write_text("".join(json.dumps({"id": ids[k], "problem_id": "p", "index": k, "answer": answers[k],
                                        "correct": correct[k], "score": s}) + "\n" for k, s in enumerate(scores)))
    return str(path)


def test_two_models_on_the_worked_pool(tmp_path):
    bad = scores_file(tmp_path / "a.jsonl", [0.9, 0.2, 0.3, 0.1])
    good = scores_file(tmp_path / "b.jsonl", [0.1, 0.8, 0.3, 0.2])
    report = bok_report({"A": bad, "B": good}, [1, 4], n_boot=50)
    rows = {(r["method"], r["k"]): r["mean"] for r in report["rows"]}
    assert rows[("A", 4)] == 0.0 and rows[("B", 4)] == 1.0 and rows[("majority", 4)] == 0.5  # 2-2 tie
    assert rows[("weighted:B", 4)] == 1.0 and rows[("oracle", 4)] == 1.0 and rows[("single", 1)] == 0.5
    assert report["rank_robustness"]["B"]["worst_correct"] == pytest.approx(2 / 3)
    table = format_table(report)
    assert "| B | 50.0 [50.0, 50.0] | 100.0 [100.0, 100.0] |" in table


def test_files_must_hold_the_same_traces(tmp_path):
    a = scores_file(tmp_path / "a.jsonl", [0.1] * 4)
    b = scores_file(tmp_path / "b.jsonl", [0.1] * 4, ids=["p/0", "p/1", "p/9", "p/3"])
    with pytest.raises(ValueError, match="traces of problem p differ"):
        bok_report({"A": a, "B": b}, [1])


def test_reaggregation_of_step_scores(tmp_path):
    path = tmp_path / "s.jsonl"
    steps = [[0.1, 0.9], [0.5, 0.5], [0.2], [0.3, 0.3]]  # prod picks #1 (0.25 > 0.09), last picks #0 (0.9)
    path.write_text("".join(json.dumps({"id": f"p/{k}", "problem_id": "p", "index": k, "answer": str(k),
                                        "correct": k == 0, "step_scores": s, "score": 0.0}) + "\n"
                            for k, s in enumerate(steps)))
    acc = {agg: bok_report({"M": str(path)}, [4], n_boot=10, aggregation=agg)["rows"] for agg in ("prod", "last")}
    assert [r["mean"] for r in acc["prod"] if r["method"] == "M"] == [0.0]
    assert [r["mean"] for r in acc["last"] if r["method"] == "M"] == [1.0]
