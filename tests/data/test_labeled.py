"""Readers of other tools' labeled step data (`prmkit.data.labeled`): Math-Shepherd with every step's +/- kept,
PRM800K with every step's rating, OpenR OmegaPRM (MC value per prefix, flat list and tree), TRL stepwise parquet.
Each on a small hand-made sample in the real record shape; a malformed record names `file:line`; `prmkit train`
trains on each with no --pools and `prmkit label` / `read_pools` read their pools."""

from __future__ import annotations

import json
import random
import time

import pytest

import prmkit
from helpers import write_jsonl
from prmkit.cli.main import main
from prmkit.data.formats import detect_format, read_pools
from prmkit.data.jsonl import DataError
from prmkit.data.labeled import detect_labeled_format, read_labeled

SHEPHERD = [{"input": "Janet has 3 apples and buys 4. How many? Step 1: 3 + 4 = 7 ки\nStep 2: She has 8 apples. "
                      "The answer is: 8 ки", "label": "Janet has 3 apples and buys 4. How many? Step 1: 3 + 4 = 7 +\n"
                      "Step 2: She has 8 apples. The answer is: 8 -", "task": "GSM8K"},
            {"input": "What is 2 * 5? Step 1: 2 * 5 = 10 ки\nStep 2: The answer is: 10 ки",
             "label": "What is 2 * 5? Step 1: 2 * 5 = 10 +\nStep 2: The answer is: 10 +", "task": "MATH"}]

PRM800K = [{"labeler": "a", "generation": 1, "is_quality_control_question": False,
            "question": {"problem": "What is 6 / 3 + 1?", "ground_truth_answer": "3", "pre_generated_answer": "4"},
            "label": {"steps": [
                {"completions": [{"text": "6 / 3 = 2.", "rating": 1, "flagged": False}], "human_completion": None,
                 "chosen_completion": 0},
                {"completions": [{"text": "Let me think.", "rating": 0, "flagged": False},
                                 {"text": "Then 2 + 1 = 3.", "rating": 1, "flagged": False}],
                 "human_completion": None, "chosen_completion": 0},
                {"completions": [{"text": "So 2 + 2 = 4.", "rating": -1, "flagged": False}],
                 "human_completion": None, "chosen_completion": None}],
                "total_time": 1000, "finish_reason": "found_error"}}]

Q = "What is 2 + 3 * 4?"
OMEGA_FLAT = {"question": Q, "final_answer": "14", "reasoning_steps": [
    {"solution_prefix": Q, "mc_value": 0.5},
    {"solution_prefix": Q + "\n\n3 * 4 = 12", "mc_value": 0.75},
    {"solution_prefix": Q + "\n\n3 * 4 = 12\n\n2 + 12 = 14\n\nThe answer is 14", "mc_value": 1.0},
    {"solution_prefix": Q + "\n\n2 + 3 = 5", "mc_value": 0.25},
    {"solution_prefix": Q + "\n\n2 + 3 = 5\n\n5 * 4 = 20", "mc_value": 0.0}]}
OMEGA_TREE = {"question": Q, "final_answer": "14", "reasoning_steps": {"text": Q, "mc_value": 0.5, "children": [
    {"text": "3 * 4 = 12", "mc_value": 0.75, "children": [
        {"text": "2 + 12 = 14\n\nThe answer is 14", "mc_value": 1.0, "children": []}]},
    {"text": "2 + 3 = 5", "mc_value": 0.25, "children": [{"text": "5 * 4 = 20", "mc_value": 0.0, "children": []}]}]}}


def _pairs(path):
    return [(pool.problem.question, pool.traces[0].steps, lab.scores, lab.labels) for pool, lab in read_labeled(path)]


def test_math_shepherd_keeps_every_steps_label(tmp_path):
    path = write_jsonl(tmp_path / "shepherd.jsonl", SHEPHERD)
    assert detect_labeled_format(path) == "math-shepherd" and detect_format(path) == "math-shepherd"
    (q0, s0, sc0, l0), (_, s1, _, l1) = _pairs(path)
    assert q0 == "Janet has 3 apples and buys 4. How many?"
    assert s0 == ["Step 1: 3 + 4 = 7", "Step 2: She has 8 apples. The answer is: 8"]
    assert l0 == [1, 0] and sc0 == [1.0, 0.0] and l1 == [1, 1] and len(s1) == 2


def test_prm800k_keeps_every_steps_rating(tmp_path):
    path = write_jsonl(tmp_path / "prm800k.jsonl", PRM800K)
    assert detect_labeled_format(path) == "prm800k"
    [(pool, lab)] = list(read_labeled(path))
    assert pool.traces[0].steps == ["6 / 3 = 2.", "Let me think.", "So 2 + 2 = 4."]
    assert lab.scores == [1.0, 0.0, -1.0] and lab.labels == [1, 1, 0]  # neutral is not wrong
    assert pool.problem.answer == "3" and pool.traces[0].answer == "4" and pool.traces[0].correct is False


@pytest.mark.parametrize("record", [OMEGA_FLAT, OMEGA_TREE], ids=["flat", "tree"])
def test_omegaprm_one_trace_per_leaf_an_mc_value_per_prefix(record, tmp_path):
    for path in (write_jsonl(tmp_path / "omega.jsonl", [record]), tmp_path / "question_0.json"):
        (tmp_path / "question_0.json").write_text(json.dumps(record, indent=4))  # OpenR writes one object a file
        assert detect_labeled_format(path) == "omegaprm"
        got = _pairs(path)
        assert [g[1] for g in got] == [["3 * 4 = 12", "2 + 12 = 14\n\nThe answer is 14"], ["2 + 3 = 5", "5 * 4 = 20"]]
        assert [g[2] for g in got] == [[0.75, 1.0], [0.25, 0.0]] and [g[3] for g in got] == [[1, 1], [1, 0]]
        assert {g[0] for g in got} == {Q}


def _openr_tree(n: int, seed: int = 0) -> list[dict]:
    """n measured prefixes of a random search tree under Q: some added steps hold `\\n\\n` themselves (several
    steps at once), some start with a newline (a `\\n\\n\\n` cut), some parents are never measured."""
    rng = random.Random(seed)
    prefixes = [Q]
    for k in range(n):
        parent = rng.choice(prefixes[-30:] + prefixes[:5])
        step = rng.choice([f"s{k}", f"a{k}\n\nb{k}", f"\nc{k}", f"{k} + 1 = {k + 1}"])
        prefixes.append(parent + "\n\n" + step)
    return [{"solution_prefix": p, "mc_value": round(rng.random(), 2)} for p in prefixes if rng.random() < 0.9]


def _naive_parents(question: str, items: list[dict]) -> dict[str, str]:
    """The parent rule as written (the longest measured prefix p extends by \\n\\n + text), checked against
    every prefix: the reference for the reader's separator lookups."""
    nodes = [i["solution_prefix"].strip() for i in items]
    return {p: max((q for q in nodes if q != question and p.startswith(q + "\n\n")), key=len, default=question)
            for p in nodes if p != question}


def test_omegaprm_flat_list_parents_are_the_naive_rules(tmp_path):
    from prmkit.data.labeled import _parent

    items = _openr_tree(400)
    nodes = {i["solution_prefix"].strip(): i["mc_value"] for i in items}
    assert {p: _parent(p, nodes, Q) for p in nodes if p != Q} == _naive_parents(Q, items)


def test_a_5_mb_one_line_openr_file_reads_in_linear_time(tmp_path):
    """20,000 prefixes in one line (~5 MB): a scan of every prefix per prefix took minutes; a lookup per separator
    is near linear. Judged by a ratio of CPU times measured here, not by a wall time: 8x the prefixes take ~10x as
    long (the quadratic reader took ~4.4x per doubling, ~85x)."""
    seconds = {}
    for n in (2_750, 22_000):
        path = tmp_path / f"question_{n}.json"
        path.write_text(json.dumps({"question": Q, "final_answer": "14", "reasoning_steps": _openr_tree(n)}))
        start = time.process_time()
        pairs = list(read_labeled(path))
        seconds[n] = time.process_time() - start
        assert len(pairs) > n // 25
        assert all(lab.scores and len(lab.scores) == len(pool.traces[0].steps) for pool, lab in pairs)
    assert seconds[22_000] < 30 * max(seconds[2_750], 0.02), seconds


def test_trl_parquet(tmp_path):
    from datasets import Dataset

    rows = [{"prompt": "q1?", "completions": ["a", "b"], "labels": [True, False]},
            {"prompt": "q2?", "completions": ["c"], "labels": [True]}]
    path = tmp_path / "train.parquet"
    Dataset.from_list(rows).to_parquet(str(path))
    assert detect_labeled_format(path) == "trl-parquet" and detect_format(path) == "trl-parquet"
    assert [(g[1], g[3]) for g in _pairs(path)] == [(["a", "b"], [1, 0]), (["c"], [1])]
    Dataset.from_list([{"prompt": "q", "completions": ["a", "b"], "labels": [True]}]).to_parquet(str(path))
    with pytest.raises(DataError, match=r"train\.parquet:row 1: 2 completions but 1 labels"):
        list(read_labeled(path))


@pytest.mark.parametrize("name,records,message", [
    ("shepherd", [SHEPHERD[0], {"input": "Q Step 1: x ки", "label": "Q Step 1: x ?"}], r":2: 'label' has no \+/-"),
    ("prm800k", [PRM800K[0], {"question": {"problem": "p"}, "label": {"steps": []}}],
     r":2: field 'label.steps' missing"),
    ("prm800k", [{**PRM800K[0], "label": {"steps": [{"completions": [{"text": "x", "rating": 7}],
                                                      "chosen_completion": 0}]}}], r":1: step 0 has rating 7"),
    ("omega", [OMEGA_FLAT, {"question": Q, "reasoning_steps": [{"solution_prefix": Q, "mc_value": 2}]}],
     r":2: reasoning_steps\[0\]: mc_value must be a number in \[0, 1\]"),
])
def test_a_malformed_record_names_file_and_line(name, records, message, tmp_path):
    path = write_jsonl(tmp_path / f"{name}.jsonl", records)
    with pytest.raises(DataError, match=f"{name}.jsonl{message}"):
        list(read_labeled(path))


@pytest.mark.filterwarnings("ignore::prmkit.data.warn.PrmkitWarning")
@pytest.mark.parametrize("name,records", [("shepherd", SHEPHERD), ("prm800k", PRM800K), ("omega", [OMEGA_FLAT])])
def test_train_reads_each_format_without_pools_and_label_reads_its_pools(name, records, tiny_base, tmp_path,
                                                                        capsys):
    path = write_jsonl(tmp_path / f"{name}.jsonl", records)
    assert main(["--quiet", "train", "prm", "--labels", path, "--model", tiny_base, "--max-steps", "1",
                 "--held-out", "0", "--save-strategy", "no", "--output", str(tmp_path / "prm")]) == 0
    assert (tmp_path / "prm" / "prmkit_reward.json").is_file()
    assert "join:" in capsys.readouterr().out
    prmkit.api.label(path, tmp_path / "ig.jsonl", method="ig", model=tiny_base, progress=False)
    labeled = [json.loads(line) for line in (tmp_path / "ig.jsonl").read_text().splitlines()]
    assert {r["trace_id"] for r in labeled} <= {t.id for p in read_pools(path) for t in p.traces}


def test_a_json_file_is_read_as_one_document_or_as_json_lines_by_every_reader(tmp_path):
    """A data set saved as one JSON list (TRL stepwise, Math-Shepherd) reads as its JSONL twin does; JSON lines in a
    file named .json (a prmkit output so named) read back as lines."""
    trl = [{"prompt": "q?", "completions": ["a", "b"], "labels": [1, 0]}, {"prompt": "r?", "completions": ["c"],
                                                                          "labels": [1]}]
    for records, name in ((trl, "trl"), (SHEPHERD, "math-shepherd")):
        (tmp_path / "set.json").write_text(json.dumps(records, indent=2))
        twin = write_jsonl(tmp_path / "set.jsonl", records)
        assert detect_format(tmp_path / "set.json") == name
        got = [(p.traces[0].steps, lab.labels) for p, lab in read_labeled(tmp_path / "set.json")]
        assert got == [(p.traces[0].steps, lab.labels) for p, lab in read_labeled(twin)] and len(got) == 2
    pools = list(read_pools(twin))
    lines = tmp_path / "pools.json"
    lines.write_text("".join(json.dumps(p.to_dict()) + "\n" for p in pools))
    assert [p.problem.id for p in read_pools(lines)] == [p.problem.id for p in pools]
    (tmp_path / "bad.json").write_text('[{"prompt": "q?"},')
    with pytest.raises(DataError, match=r"bad\.json: invalid JSON"):
        list(read_pools(tmp_path / "bad.json"))
