"""The `truth` scorer (the bench's exact checker as a StepScorer) on hand-computed traces, through `prmkit score`
and the RL reward spec."""

from __future__ import annotations

import json

import pytest

from helpers import cli, pool_dict, write_jsonl
from prmkit.data.bench import bench_problems
from prmkit.data.jsonl import write_records
from prmkit.models.scorer_spec import load_scorer_spec
from prmkit.rewards import build_rewards, problem_column

# Kira has 15 coins, gives 6 away, finds 12: graph 15 - 6 = 9, 9 + 12 = 21; path values 6 9 12 15 21 27
P = bench_problems(1, seed=0, levels=(2,))[0]
RIGHT = ["15 - 6 = 9 coins.", "9 + 12 = 21 coins.", "The answer is $21$."]
WRONG_AT_2 = ["15 - 6 = 9.", "9 + 12 = 20.", "The answer is $21$."]  # step 3 alone is right: 0 carried from step 2
UNDECIDED = ["15 - 6 = 9.", "Kira has 20 coins.", "9 + 12 = 21.", "The answer is 21."]  # 20: off the path
MISREAD = ["15 - 7 = 8.", "8 + 12 = 20.", "The answer is 20."]  # right arithmetic on a misread number


@pytest.fixture
def problems(tmp_path):
    path = tmp_path / "problems.jsonl"
    write_records(path, [P])
    return str(path)


def test_truth_is_one_before_the_first_wrong_step_and_zero_from_it(problems):
    assert P.meta["graph"] == [["-", 15, 6, 9], ["+", 9, 12, 21]]
    scorer = load_scorer_spec(f"truth:{problems}")
    assert scorer.score_steps(P.question, [RIGHT, WRONG_AT_2, UNDECIDED, MISREAD]) == [
        [1.0, 1.0, 1.0], [1.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]


def test_a_question_that_is_no_bench_problem_is_an_error_naming_it_and_the_files(tmp_path, problems):
    plain = write_jsonl(tmp_path / "plain.jsonl", [pool_dict("g1", "Tom has " + "many " * 30 + "apples?", "3", [])])
    scorer = load_scorer_spec(f"truth:{problems}:{plain}")  # several files joined by ':'
    with pytest.raises(ValueError, match=r"question 'What is 2 \+ 2\?' is not among the bench problems of .*"
                                         r"problems.jsonl \+ .*plain.jsonl"):
        scorer.score_steps("What is 2 + 2?", [["2 + 2 = 4."]])
    with pytest.raises(ValueError, match=r"'Tom has (many ){14}ma' has no computation graph"):  # 80 characters
        scorer.score_steps("Tom has " + "many " * 30 + "apples?", [["1 + 2 = 3."]])
    assert scorer.score_steps(P.question, [WRONG_AT_2]) == [[1.0, 0.0, 0.0]]
    with pytest.raises(ValueError, match="hold no bench problem"):
        load_scorer_spec(f"truth:{plain}")


def test_prmkit_score_with_the_oracle_on_a_bench_pools_file(tmp_path, problems):
    traces = [(RIGHT, "21", True), (WRONG_AT_2, "21", True), (UNDECIDED, "21", True)]
    pools = write_jsonl(tmp_path / "pools.jsonl", [pool_dict(P.id, P.question, P.answer, traces)])
    out = tmp_path / "scores.jsonl"
    done = cli("score", "--scorer", "truth", "--model", problems, "--input", pools, "--output", str(out),
               "--aggregation", "min")
    assert done.returncode == 0 and "scored 3 traces of 1 problems" in done.stdout
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["step_scores"] for r in records] == [[1.0, 1.0, 1.0], [1.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]]
    assert [r["score"] for r in records] == [1.0, 0.0, 0.0] and {r["kind"] for r in records} == {"truth"}


def test_the_rl_reward_spec_takes_the_oracle(problems):
    funcs, weights = build_rewards(f"outcome+0.5*prm_min:truth:{problems}")
    completions = [" [STEP] ".join(RIGHT), " [STEP] ".join(WRONG_AT_2), " [STEP] ".join(MISREAD)]
    column = [problem_column(P)] * 3
    outcome, oracle = (f(prompts=["q"] * 3, completions=completions, problem=column) for f in funcs)
    assert weights == [1.0, 0.5]
    assert outcome == [1.0, 1.0, 0.0] and oracle == [1.0, 0.0, 0.0]  # the oracle sees the wrong step 2
