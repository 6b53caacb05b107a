import json
from pathlib import Path

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


def test_weighted_voting_of_a_bradley_terry_head_votes_its_strengths(tmp_path):
    # utilities: the 5s score 0.0 and -0.5, the 7s -2.0 and 1.0. Summed raw, 5 wins (-0.5 > -1.0: a negative utility
    # counts against its answer); as Bradley-Terry strengths e^r, 7 wins (0.14 + 2.72 > 1.0 + 0.61)
    path = scores_file(tmp_path / "bt.jsonl", [0.0, -2.0, 1.0, -0.5])
    rows = path.replace(".jsonl", "_kind.jsonl")
    Path(rows).write_text("".join(json.dumps({**json.loads(line), "kind": "bt"}) + "\n"
                                  for line in Path(path).read_text().splitlines()))
    weighted = {name: [r["mean"] for r in bok_report({"M": f}, [4], n_boot=10)["rows"] if r["method"] == "weighted:M"]
                for name, f in (("raw", path), ("bt", rows))}
    assert weighted == {"raw": [0.0], "bt": [1.0]}


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


def two_problems(path, sizes: list[int], correct: bool | None = None) -> str:
    rows = [{"id": f"p{p}/{k}", "problem_id": f"p{p}", "index": k, "answer": str(k % 2),
             "correct": (k % 2 == 0) if correct is None else correct, "score": k / 10}
            for p, n in enumerate(sizes) for k in range(n)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


def test_k_above_every_pool_is_an_error_and_above_some_a_marked_warning(tmp_path):
    from prmkit.data.warn import PrmkitWarning

    path = two_problems(tmp_path / "s.jsonl", [4, 2])
    with pytest.raises(ValueError, match=r"K=\[8\] outside 1..4: the largest pool has 4 candidates"):
        bok_report({"M": path}, [1, 8], n_boot=10)
    with pytest.warns(PrmkitWarning, match="K=4: 1 of 2 problems have fewer than 4 candidates"):
        report = bok_report({"M": path}, [1, 4], n_boot=10)
    assert report["k_capped"] == {4: 1} and sum(w.startswith("K=") for w in report["warnings"]) == 1
    table = format_table(report)
    assert "| method | K=1 | K=4* |" in table and "*K=4: 1 problems have fewer than 4" in table


def test_default_ks_follow_the_pools_of_the_chosen_problems(tmp_path):
    # a 2-candidate problem outside --problems-range does not cut the default Ks of the 4-candidate ones inside it
    path = two_problems(tmp_path / "s.jsonl", [4, 2])
    assert bok_report({"M": path}, [], n_boot=10, problems=slice(0, 1))["ks"] == [1, 2, 4]
    assert bok_report({"M": path}, [], n_boot=10)["ks"] == [1, 2]


def test_an_undefined_rank_percentile_is_explained(tmp_path):
    from prmkit.data.warn import PrmkitWarning

    path = two_problems(tmp_path / "s.jsonl", [4, 4], correct=False)
    with pytest.warns(PrmkitWarning, match="worst_correct rank percentile is undefined"):
        report = bok_report({"M": path}, [1], n_boot=10)
    assert report["rank_robustness"]["M"]["problems_with_correct"] == 0
    assert "| M | n/a (no problem has a correct candidate) | 1.000 |" in format_table(report)


def test_evaluate_cli_refuses_k_above_the_pools_and_unknown_config_keys(tmp_path, capsys):
    from prmkit.cli.main import main

    path = two_problems(tmp_path / "s.jsonl", [4, 4])
    assert main(["evaluate", "bok", "--scores", f"M={path}", "--ks", "1,8", "--bootstrap", "10"]) == 2
    assert "K=[8] outside 1..4" in capsys.readouterr().err
    conf = tmp_path / "eval.yaml"
    conf.write_text(f"scores: ['M={path}']\nks: '1,2'\nbootstrap: 10\nweighted: false\n")
    assert main(["evaluate", "bok", "--config", str(conf), "--output", str(tmp_path / "r.json")]) == 0
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["ks"] == [1, 2] and not any(r["method"].startswith("weighted:") for r in report["rows"])
    conf.write_text("scores: ['M=x']\nkss: '1'\n")
    assert main(["evaluate", "bok", "--config", str(conf)]) == 2
    assert "unknown keys ['kss']" in capsys.readouterr().err


def test_named_files_and_default_ks():
    from prmkit.evaluate.bok import default_ks
    from prmkit.evaluate.run import named_files

    assert named_files(["A=x/a.jsonl", "runs/b.jsonl"]) == {"A": "x/a.jsonl", "b": "runs/b.jsonl"}
    assert default_ks(4) == [1, 2, 4] and default_ks(7) == [1, 2, 4] and default_ks(1) == [1]
    with pytest.raises(ValueError, match="at least one score file"):
        named_files([])


def test_a_label_file_passed_as_scores_is_an_error_naming_the_line(tmp_path):
    good = scores_file(tmp_path / "a.jsonl", [0.1, 0.8, 0.3, 0.2])
    labels = tmp_path / "mcnig.jsonl"
    labels.write_text(json.dumps({"trace_id": "p/0", "problem_id": "p", "scores": [1.0], "correct": True}) + "\n")
    with pytest.raises(ValueError, match=r"mcnig.jsonl:1: not a score record \(no id, index, answer, score\)"):
        bok_report({"A": good, "L": str(labels)}, [1], n_boot=10)


def many_problems(path, n: int, distinct: bool, scores) -> str:
    """n problems of 4 candidates: answers 1, 2, 3, 4 (distinct) or 1, 1, 2, 2; candidate 0 is right."""
    rows = [{"id": f"p{p}/{k}", "problem_id": f"p{p}", "index": k, "answer": str(k + 1 if distinct else k // 2),
             "correct": k == 0, "score": scores(p, k), "step_scores": [scores(p, k)]}
            for p in range(n) for k in range(4)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


def test_cautions_for_figures_that_mislead(tmp_path):
    """Few problems, majority voting that is a coin toss or worse than one candidate, a model whose scores barely
    vary or sit on one side of 0.5: each a warning in the report; none on 60 problems with repeated answers and
    spread scores."""
    from prmkit.data.warn import PrmkitWarning

    spread = many_problems(tmp_path / "ok.jsonl", 60, False, lambda p, k: 0.9 - 0.25 * k)
    with warnings_as_list() as caught:
        report = bok_report({"M": spread}, [1, 4], n_boot=10)
    assert report["warnings"] == [] and caught == []
    narrow = many_problems(tmp_path / "narrow.jsonl", 20, True, lambda p, k: 0.30 + 0.01 * k)
    with pytest.warns(PrmkitWarning):
        report = bok_report({"N": narrow}, [1, 4], n_boot=10)
    text = "\n".join(report["warnings"])
    assert "only 20 problems: the 95% intervals resample so few problems" in text
    assert "in 20 of 20 problems no two candidates share an answer" in text
    assert "N: 90% of its trace scores lie within [0.300, 0.330]" in text
    assert "N: every step score is below 0.5 (from 0.300 to 0.330)" in text
    rows = [json.loads(line) for line in Path(spread).read_text().splitlines()]
    for r in rows:  # candidate 0 right with its own answer, the three wrong ones agree
        r["answer"] = "0" if r["index"] == 0 else "9"
    (tmp_path / "agree.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.warns(PrmkitWarning, match=r"at K=4 majority voting \(0.0%\) does worse than one random candidate "
                                           r"\(25.0%\): wrong answers agree more often"):
        bok_report({"M": str(tmp_path / "agree.jsonl")}, [1, 4], n_boot=10)


class warnings_as_list:
    """Record every PrmkitWarning raised inside the block."""

    def __enter__(self):
        import warnings

        from prmkit.data.warn import PrmkitWarning

        self._cm = warnings.catch_warnings(record=True)
        self.caught = self._cm.__enter__()
        warnings.simplefilter("always", PrmkitWarning)
        return self.caught

    def __exit__(self, *exc):
        return self._cm.__exit__(*exc)


def test_problems_without_a_gold_answer_are_left_out_with_a_warning_even_under_quiet(tmp_path, capsys):
    """A trace with `correct` null (its problem had no gold answer) counted as wrong: 2 judged problems where the
    single sample is right half the time read 25% once 2 unjudged ones joined them. They are counted and left out of
    every accuracy now; a table of unjudged problems alone is refused."""
    from prmkit.cli.main import main

    judged = [json.loads(line) for line in Path(two_problems(tmp_path / "j.jsonl", [4, 4])).read_text().splitlines()]
    unjudged = [r | {"id": "q" + r["id"], "problem_id": "q" + r["problem_id"], "correct": None} for r in judged]
    mixed, alone = tmp_path / "mixed.jsonl", tmp_path / "alone.jsonl"
    mixed.write_text("".join(json.dumps(r) + "\n" for r in judged + unjudged))
    alone.write_text("".join(json.dumps(r) + "\n" for r in unjudged))
    out = tmp_path / "r.json"
    assert main(["evaluate", "bok", "--scores", f"M={mixed}", "--ks", "1", "--bootstrap", "10", "--output", str(out),
                 "--quiet"]) == 0
    said = capsys.readouterr()
    assert "warning: 2 of 4 problems have no gold answer (a trace with `correct` null): left out" in said.err
    report = json.loads(out.read_text())
    assert report["problems"] == 2 and report["no_gold_answer"] == 2
    assert {(r["method"], r["k"]): r["mean"] for r in report["rows"]}[("single", 1)] == 0.5  # not 0.25
    assert "best-of-K over 2 problems; 2 without a gold answer left out" in said.out
    assert main(["evaluate", "bok", "--scores", f"M={alone}", "--ks", "1", "--bootstrap", "10"]) == 2
    assert "none of the 2 problems has a gold answer" in capsys.readouterr().err
