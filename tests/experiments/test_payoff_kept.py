"""Kept payoff rows: a row's figures re-derived from its kept file and the fresh pools alone (hand-checked), equal to
the table of its row directory; `payoff score` rows of the exact checker and the rule verifier."""

from __future__ import annotations

import gzip
import json
import math

import pytest

from prmkit.cli.main import main
from prmkit.data.jsonl import write_records
from prmkit.experiments.payoff_kept import keep_row, kept_name, read_kept
from prmkit.experiments.payoff_report import payoff_table
from prmkit.experiments.payoff_score import PayoffScoreConfig, score_payoff

# 3 problems x 2 samples: (answer, correct, step scores). K = 2: majority ties each problem's two answers (0.5);
# best-of-2 (product of the step scores) picks the right sample of A (.9 > .2) and B (.9 * .95 = .855 > .8), the
# wrong one of C (.7 > .1): 1, 1, 0; single sampling and majority voting 0.5 each.
SAMPLES = {"A": [("1", True, [0.9]), ("2", False, [0.2])],
           "B": [("3", False, [0.8]), ("4", True, [0.9, 0.95])],
           "C": [("5", False, [0.7]), ("6", True, [0.1])]}
FIGURES = {"name": "truth@600", "labeler": "truth", "kind": "prm", "traces": "policy", "train_problems": 600,
           "seed": 0, "label_cost": {"tokens_read": 0, "tokens_generated": 0, "seconds": 0.0, "known": True},
           "train": {"seconds": 430.0, "train_seconds": 412.5, "examples": 4800, "peak_rss_gb": 2.07}}


def _fresh(tmp_path, samples=SAMPLES):
    pools = [{"problem": {"id": p, "question": f"question {p}?", "answer": next(a for a, c, _ in s if c)},
              "traces": [{"id": f"{p}/s{i}", "problem_id": p, "steps": [f"step {j}" for j in range(len(steps))],
                          "answer": a, "correct": c} for i, (a, c, steps) in enumerate(s)]} for p, s in samples.items()]
    path = tmp_path / "fresh.jsonl.gz"
    with gzip.open(path, "wt") as f:
        f.writelines(json.dumps(p) + "\n" for p in pools)
    return path


def _row_dir(tmp_path, fresh, name="truth@600", seed=0, samples=SAMPLES):
    """A finished `payoff run` directory: row.json and scores.jsonl (product of the step scores)."""
    from prmkit.experiments.payoff_kept import read_fresh

    out = tmp_path / name.replace("#", "_")
    out.mkdir()
    recs = [{"id": f"{p}/s{i}", "problem_id": p, "index": i, "answer": a, "correct": c, "kind": "prm",
             "step_scores": steps, "aggregation": "prod", "score": math.prod(steps)}
            for p, s in samples.items() for i, (a, c, steps) in enumerate(s)]
    write_records(out / "scores.jsonl", recs)
    row = FIGURES | {"name": name, "seed": seed, "fresh": {"path": str(fresh), "problems": 3, "traces": 6},
                     "scores": str(out / "scores.jsonl"), "model": str(out / "model")}
    (out / "row.json").write_text(json.dumps(row))
    return out, row, read_fresh(fresh)


def test_a_rows_figures_re_derive_from_its_kept_file_alone(tmp_path):
    fresh = _fresh(tmp_path)
    out, row, pools = _row_dir(tmp_path, fresh)
    kept = keep_row(row, out / "scores.jsonl", pools, tmp_path / "kept")
    assert kept.name == kept_name("truth@600") == "truth_600.jsonl.gz"
    figures, steps = read_kept(kept)
    assert steps == {p: [s for _, _, s in samples] for p, samples in SAMPLES.items()}
    assert figures["train"]["train_seconds"] == 412.5 and figures["fresh"]["traces"] == 6 and "model" not in figures
    summary = tmp_path / "summary.json"
    report = payoff_table([str(kept)], None, [1, 2], bootstrap=20, fresh=str(fresh), summary=str(summary))
    acc = {(r["method"], r["k"]): r["mean"] for r in report["rows"]}
    assert acc["single", 2] == acc["majority", 2] == 0.5 and acc["truth@600", 2] == pytest.approx(2 / 3)
    line = next(s for s in json.loads(summary.read_text()) if s["k"] == 2)
    assert line["bon_minus_majority"][0] == line["weighted_minus_majority"][0] == pytest.approx(0.1667, abs=1e-4)
    assert (line["train_seconds"], line["peak_rss_gb"], line["label_tokens"]) == (412.5, 2.07, 0)
    # the same table as the row directory's, to the last digit, re-aggregated alike (ROW@min)
    for suffix in ("", "@min"):
        mine = payoff_table([str(kept) + suffix], None, [1, 2], bootstrap=20, fresh=str(fresh))
        theirs = payoff_table([str(out) + suffix], None, [1, 2], bootstrap=20)
        assert (mine["rows"], mine["differences"], mine["costs"]) == (theirs["rows"], theirs["differences"],
                                                                        theirs["costs"])


def test_a_kept_row_is_refused_against_another_fresh_set_or_without_one(tmp_path):
    fresh = _fresh(tmp_path)
    out, row, pools = _row_dir(tmp_path, fresh)
    kept = keep_row(row, out / "scores.jsonl", pools, tmp_path / "kept" / "x.jsonl.gz")
    with pytest.raises(ValueError, match="give --fresh"):
        payoff_table([str(kept)], None, [1, 2], bootstrap=5)
    (tmp_path / "o").mkdir()
    other = _fresh(tmp_path / "o", SAMPLES | {"C": [("5", True, [0.7]), ("6", True, [0.1])]})  # another verdict
    with pytest.raises(ValueError, match="scored another fresh set"):
        payoff_table([str(kept)], None, [1, 2], bootstrap=5, fresh=str(other))


def test_rows_of_three_seeds_get_an_interval_over_problems_and_seeds(tmp_path):
    """Row r's three seeds score alike (+1/6 at K = 2 each): its interval over problems and seeds is the one over
    problems (the same problem draws; the seed draws change nothing). Row q's seeds differ (its seed 2 scores C's
    right sample .75, above the wrong one's .7): per seed 1/6, 1/6, 1/2; mean 5/18."""
    from prmkit.experiments.payoff_report import format_payoff

    fresh = _fresh(tmp_path)
    kept = []
    for s in range(3):
        out, row, pools = _row_dir(tmp_path, fresh, f"r#s{s}", s)
        kept.append(keep_row(row, out / "scores.jsonl", pools, tmp_path / "kept"))
        right = [0.75] if s == 2 else [0.1]
        out, row, pools = _row_dir(tmp_path, fresh, f"q#s{s}", s, SAMPLES | {"C": [("5", False, [0.7]),
                                                                                 ("6", True, right)]})
        kept.append(keep_row(row, out / "scores.jsonl", pools, tmp_path / "kept"))
    one, _, _ = _row_dir(tmp_path, fresh, "z")  # one seed: no seed interval, left out of the ranking
    rule, row, _ = _row_dir(tmp_path, fresh, "rule")  # untrained: no seed to vary, ranked as it is
    (rule / "row.json").write_text(json.dumps(row | {"seed": None, "train": {**row["train"], "examples": 0}}))
    report = payoff_table([*map(str, kept), str(one), str(rule)], None, [1, 2], bootstrap=200, fresh=str(fresh))
    seeds = {(r["row"], r["k"]): r for r in report["seeds"]["rows"]}
    assert set(seeds) == {("r", 2), ("q", 2), ("rule", 2)} and seeds["rule", 2]["untrained"]
    r, q = seeds["r", 2]["best"], seeds["q", 2]["best"]
    assert seeds["r", 2]["seeds"] == [0, 1, 2] and r["per_seed"] == pytest.approx([1 / 6] * 3)
    assert r["over_seeds"] == pytest.approx(r["over_problems"])
    assert q["per_seed"] == pytest.approx([1 / 6, 1 / 6, 1 / 2]) and q["mean"] == pytest.approx(5 / 18)
    assert q["over_seeds"][0] <= q["mean"] <= q["over_seeds"][1]
    top = [x for x in report["seeds"]["ranking"] if x["selector"] == "best"]
    assert (top[0]["higher"], top[0]["lower"]) == ("q", "r") and top[0]["difference"] == pytest.approx(1 / 9)
    md = format_payoff(report)
    assert "over problems and seeds" in md and "| q | r |" in md and "| rule | untrained | 2 |" in md


def test_joint_interval_sees_the_seed_spread_the_problem_interval_misses():
    import numpy as np

    from prmkit.evaluate.stats import bootstrap_ci
    from prmkit.experiments.payoff_seeds import joint_interval

    d = np.array([[0.0] * 4, [1.0] * 4, [0.5] * 4])  # 3 seeds that disagree, each alike on every problem
    assert bootstrap_ci(d.mean(axis=0), 200, 0) == (0.5, 0.5)  # over problems alone: no spread at all
    lo, hi = joint_interval([d], [1.0], 400, 0)
    assert lo < 0.25 and hi > 0.75


def test_one_seed_twice_or_a_name_against_its_seed_is_refused(tmp_path):
    fresh = _fresh(tmp_path)
    a, _, _ = _row_dir(tmp_path, fresh, "r#s1", seed=1)
    b, _, _ = _row_dir(tmp_path, fresh, "r", seed=1)
    with pytest.raises(ValueError, match="one row with one seed"):
        payoff_table([str(a), str(b)], None, [1, 2], bootstrap=5)
    c, _, _ = _row_dir(tmp_path, fresh, "s#s2", seed=0)
    with pytest.raises(ValueError, match="its name says seed 2"):
        payoff_table([str(a), str(c)], None, [1, 2], bootstrap=5)


def test_payoff_score_rows_of_the_exact_checker_and_the_rule(tmp_path, capsys):
    """Two bench problems (15 - 6 = 9, 9 + 12 = 21; 9 + 7 = 16, 16 + 15 = 31), two samples each; the checker sees
    the slip of /s1 in both, the rule only where the arithmetic itself is wrong (a problem's numbers misread pass)."""
    from prmkit.data.bench import bench_problems

    p, q = bench_problems(2, seed=0, levels=(2,))
    steps = {p.id: [["15 - 6 = 9.", "9 + 12 = 21.", "The answer is 21."],
                    ["15 - 6 = 9.", "9 + 12 = 20.", "The answer is 20."]],
             q.id: [["9 + 7 = 16.", "16 + 15 = 31.", "The answer is 31."],
                    ["9 + 8 = 17.", "17 + 15 = 32.", "The answer is 32."]]}
    pools = [{"problem": x.to_dict(), "traces": [{"id": f"{x.id}/s{i}", "problem_id": x.id, "steps": s,
                                                  "answer": s[-1][14:-1], "correct": i == 0}
                                                 for i, s in enumerate(steps[x.id])]} for x in (p, q)]
    fresh = tmp_path / "fresh.jsonl"
    write_records(fresh, pools)
    for name, spec in (("checker", f"truth:{fresh}"), ("rule", "rule:")):
        assert main(["payoff", "score", "--scorer", spec, "--name", name, "--fresh", str(fresh), "--output",
                     str(tmp_path / name), "--keep", str(tmp_path / "kept")]) == 0
        assert f"{name}: 4 fresh traces scored" in capsys.readouterr().out
    scores = lambda n: [json.loads(x)["step_scores"] for x in (tmp_path / n / "scores.jsonl").open()]  # noqa: E731
    assert scores("checker") == [[1.0] * 3, [1.0, 0.0, 0.0], [1.0] * 3, [0.0, 0.0, 0.0]]
    assert scores("rule") == [[1.0] * 3, [1.0, 0.0, 1.0], [1.0] * 3, [1.0, 1.0, 1.0]]
    row = json.loads((tmp_path / "rule" / "row.json").read_text())
    assert (row["kind"], row["train"]["examples"], row["label_cost"]["tokens_read"]) == ("rule", 0, 0)
    code = main(["payoff", "table", str(tmp_path / "kept" / "checker.jsonl.gz"), str(tmp_path / "kept" /
                 "rule.jsonl.gz"), "--fresh", str(fresh), "--ks", "1,2", "--bootstrap", "10"])
    out = capsys.readouterr().out
    assert code == 0 and "| checker | truth | +50.0 [+50.0, +50.0]" in out and "| rule | rule | +25.0" in out
    assert "untrained" in out
    score_payoff(PayoffScoreConfig(scorer="rule:", fresh=str(fresh), output=str(tmp_path / "o"), name="oracle"))
    with pytest.raises(ValueError, match="baselines are named single, majority and oracle"):
        payoff_table([str(tmp_path / "o")], None, [1, 2], bootstrap=5)
