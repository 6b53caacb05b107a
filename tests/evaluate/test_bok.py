import numpy as np
import pytest

from prmkit.data.answers import answer_key
from prmkit.evaluate.bok import Candidate, bok_curves, difference_rows, expected_accuracy
from prmkit.evaluate.rank import rank_percentiles, rank_robustness
from prmkit.evaluate.stats import bootstrap_ci

# (answer, correct, score): the docstring's worked example
POOL = [Candidate("5", False, 0.9), Candidate("7", True, 0.2), Candidate("7", True, 0.3), Candidate("5", False, 0.1)]
# a scorer that ranks the lone correct candidate first while the wrong answer has the majority
GOOD = [Candidate("3", False, 0.1), Candidate("3", False, 0.2), Candidate("4", True, 0.9), Candidate("3", False, 0.3)]


def acc(pool, selector, k):
    return expected_accuracy([pool], selector, k)[0]


def test_worked_example_all_subsets():
    assert acc(POOL, "majority", 4) == 0.5  # 5 vs 7 tie -> the earliest sample, either with equal chance
    assert acc(POOL, "weighted", 4) == 0.0  # 5 has 1.0 vs 0.5
    assert acc(POOL, "best", 4) == 0.0
    assert acc(POOL, "oracle", 2) == pytest.approx(5 / 6)
    for selector in ("single", "majority", "weighted", "best"):
        assert acc(POOL, selector, 2) == pytest.approx(0.5)


def test_reward_beats_majority_when_it_ranks_the_correct_one_first():
    assert acc(GOOD, "majority", 4) == 0.0
    assert acc(GOOD, "best", 4) == 1.0
    assert acc(GOOD, "weighted", 4) == 1.0  # "4" has 0.9 > 0.1 + 0.2 + 0.3 for "3"
    assert acc(GOOD, "best", 2) == pytest.approx(3 / 6)  # every pair containing the correct one
    assert acc(GOOD, "single", 1) == pytest.approx(0.25)


def test_best_skips_unanswered_candidates_like_majority_voting():
    # a truncated sample with no answer scores highest; it cannot be right, so best-of-K takes the next one
    pool = [Candidate(None, False, 0.9), Candidate("4", True, 0.6), Candidate("3", False, 0.2)]
    assert acc(pool, "best", 3) == 1.0
    assert acc(pool, "best", 2) == pytest.approx(2 / 3)  # {None, 4}: 4; {None, 3}: 3; {4, 3}: 4
    assert acc([Candidate(None, False, 0.9), Candidate(None, True, 0.1)], "best", 2) == 0.0  # none answers: any


def test_ties_go_to_the_earliest_sample_and_answers_are_normalised():
    pool = [Candidate("1,000", True), Candidate("7", False), Candidate("1000.0", True), Candidate("9", False)]
    assert answer_key("1,000") == answer_key("1000.0") == "1000"
    assert acc(pool, "majority", 4) == 1.0  # 1000 has two votes once normalised
    # a two-way tie is a coin flip whatever the file order: majority at K=2 equals single sampling
    assert acc([Candidate("7", False), *pool[:1]], "majority", 2) == 0.5
    assert acc(pool, "majority", 2) == pytest.approx(acc(pool, "single", 2)) == pytest.approx(0.5)
    # equal top scores: each tied candidate with equal chance; no answer at all: a random candidate
    tied = [Candidate("1", False, 0.5), Candidate("2", True, 0.5), Candidate("3", True, 0.1)]
    assert acc(tied, "best", 3) == pytest.approx(0.5)
    assert acc([Candidate(None, True), Candidate(None, False)], "majority", 2) == 0.5


def test_bootstrap_interval_and_sampled_subsets():
    values = np.array([0.0, 1.0] * 50)
    lo, hi = bootstrap_ci(values, 2000, seed=1)
    assert lo < 0.5 < hi and hi - lo == pytest.approx(0.2, abs=0.05)
    assert bootstrap_ci(np.ones(10)) == (1.0, 1.0)
    big = [Candidate(str(i % 3), i % 3 == 0, i / 20) for i in range(20)]
    assert 0.0 <= expected_accuracy([big], "majority", 8, max_subsets=16)[0] <= 1.0
    rows = bok_curves({"m": ("oracle", [POOL, GOOD])}, [1, 2])
    assert [r["mean"] for r in rows] == pytest.approx([(0.5 + 0.25) / 2, (5 / 6 + 0.5) / 2])


def test_rank_percentiles_worked_example():
    assert rank_percentiles([0.9, 0.2, 0.3, 0.1]) == pytest.approx([1, 1 / 3, 2 / 3, 0])
    r = rank_robustness([POOL, GOOD])
    assert r["worst_correct"] == pytest.approx((1 / 3 + 1) / 2)
    assert r["best_incorrect"] == pytest.approx((1 + 2 / 3) / 2)
    assert rank_percentiles([0.5, 0.5]) == [0.5, 0.5]


def test_difference_against_majority_is_paired_by_problem():
    # 20 problems: two wrong candidates agree on "7", the right one "5" scores highest -> the model always wins
    # at K=3 and majority always loses; at K=1 both are single samples of the same subsets: difference exactly 0
    win = [Candidate("7", False, 0.1), Candidate("7", False, 0.2), Candidate("5", True, 0.9)]
    pools = [win] * 20
    methods = {"majority": ("majority", pools), "RM": ("best", pools)}
    rows = {r["k"]: r for r in difference_rows(methods, "majority", [1, 3], n_boot=200)}
    assert rows[3]["mean"] == pytest.approx(1.0) and rows[3]["lo"] > 0
    assert rows[1]["mean"] == 0 and rows[1]["method"] == "RM"  # best of 1 = majority of 1 = the same sample
    # with a scorer that prefers a wrong answer, the interval lies below 0
    lose = [Candidate("7", False, 0.1), Candidate("7", True, 0.2), Candidate("5", False, 0.9)]
    bad = {"majority": ("majority", [lose] * 20), "RM": ("best", [lose] * 20)}
    assert difference_rows(bad, "majority", [3], n_boot=200)[0]["hi"] < 0


def test_api_warnings_point_at_the_callers_line_and_the_table_says_what_its_cells_are(tmp_path):
    import json

    import prmkit
    from prmkit.data.warn import PrmkitWarning

    rows = [("5", False, 0.9), ("7", True, 0.2), ("7", True, 0.3), ("5", False, 0.1)]  # POOL, one problem
    path = tmp_path / "scores.jsonl"
    path.write_text("".join(json.dumps({"id": f"p/{k}", "problem_id": "p", "index": k, "answer": a, "correct": c,
                                        "score": s}) + "\n" for k, (a, c, s) in enumerate(rows)))
    with pytest.warns(PrmkitWarning, match="only 1 problems") as caught:
        report = prmkit.api.best_of_k([f"M={path}"], ks="1,4", bootstrap=20)
    assert caught and {w.filename for w in caught} == {__file__}  # not report.py or warn.py
    table = prmkit.api.bok_table(report)
    assert table.splitlines()[0] == "best-of-K over 1 problems (mean [95% bootstrap interval], %)"
    assert "| M | 50.0 [50.0, 50.0] | 0.0 [0.0, 0.0] |" in table
