"""`prmkit data bench`: sets of bench problems disjoint by question from other files."""

from __future__ import annotations

import json

import pytest

import prmkit
from prmkit.cli.main import main
from prmkit.data.bench import bench_problems
from prmkit.data.jsonl import DataError, write_records
from prmkit.data.outputs import OutputPathError
from prmkit.experiments.bench_sets import BenchSetConfig, excluded_questions, write_bench_set
from prmkit.generate.sources import load_problems


def _questions(path) -> list[str]:
    return [p.question for p in load_problems(str(path))]


def test_a_set_keeps_the_level_balance_and_no_repeated_question(tmp_path):
    out = tmp_path / "set.jsonl"
    summary = write_bench_set(BenchSetConfig(output=str(out), problems=30, levels="1,2", seed=5))
    problems = load_problems(str(out))
    assert summary["problems"] == len(problems) == 30
    assert summary["by_level"] == {"1": 15, "2": 15}
    assert sorted(p.meta["level"] for p in problems) == [1] * 15 + [2] * 15
    assert len(set(_questions(out))) == 30
    assert all(p.meta["graph"] for p in problems)  # the checker's computation graph travels with the problem


def test_excluded_questions_never_enter_the_set(tmp_path):
    stream = bench_problems(40, 7, (1,), "small")
    banned = tmp_path / "sft_data.jsonl"  # prmkit sft's shape: a question per line beside other fields
    banned.write_text("".join(json.dumps({"prompt": "x", "completion": "y", "question": p.question}) + "\n"
                              for p in stream[:10]))
    pools = tmp_path / "pools.jsonl"  # a Pool file: the question sits in `problem`
    pools.write_text(json.dumps({"problem": {"question": stream[10].question}, "traces": []}) + "\n")
    out = tmp_path / "set.jsonl"
    summary = write_bench_set(BenchSetConfig(output=str(out), problems=12, levels="1", seed=7,
                                             exclude=[str(banned), str(pools)]))
    got = set(_questions(out))
    assert len(got) == 12
    assert not got & excluded_questions([banned, pools])
    assert summary["skipped"]["excluded"] >= 11


def test_two_sets_made_one_after_the_other_are_disjoint_and_reproducible(tmp_path):
    train, held = tmp_path / "train.jsonl", tmp_path / "held.jsonl"
    prmkit.api.bench_set(output=str(train), problems=20, levels="1,2", seed=1)
    assert main(["data", "bench", "--output", str(held), "--problems", "10", "--levels", "1,2", "--seed", "2",
                 "--exclude", str(train)]) == 0
    assert not set(_questions(train)) & set(_questions(held))
    again = tmp_path / "again.jsonl"
    prmkit.api.bench_set(output=str(again), problems=10, levels="1,2", seed=2, exclude=[str(train)])
    assert again.read_text() == held.read_text()


def test_bad_input_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="outside the templates"):
        BenchSetConfig(output=str(tmp_path / "x.jsonl"), levels="0,9")
    with pytest.raises(ValueError, match="unknown size"):
        BenchSetConfig(output=str(tmp_path / "x.jsonl"), size="huge")
    with pytest.raises(FileNotFoundError, match="no such file"):
        BenchSetConfig(output=str(tmp_path / "x.jsonl"), exclude=[str(tmp_path / "missing.jsonl")])
    bad = tmp_path / "bad.jsonl"
    write_records(bad, [{"id": "a"}])
    with pytest.raises(OutputPathError):  # the output would overwrite a set it must be disjoint from
        write_bench_set(BenchSetConfig(output=str(bad), exclude=[str(bad)]))
    with pytest.raises(DataError, match=r"bad.jsonl:1: no question"):
        write_bench_set(BenchSetConfig(output=str(tmp_path / "x.jsonl"), exclude=[str(bad)]))
    whole = tmp_path / "whole.jsonl"  # every problem of the stream the set may search
    write_records(whole, bench_problems(100, 3, (1,), "small"))
    with pytest.raises(ValueError, match="only 0 of 5 distinct problems"):
        write_bench_set(BenchSetConfig(output=str(tmp_path / "x.jsonl"), problems=5, levels="1", seed=3,
                                       exclude=[str(whole)]))


def test_constructed_traces_and_true_labels_of_the_set(tmp_path):
    from prmkit.data.bench_checker import check_steps, first_wrong
    from prmkit.data.jsonl import read_records
    from prmkit.data.records import Pool, StepLabels

    out, pools, labels = tmp_path / "p.jsonl", tmp_path / "pools.jsonl", tmp_path / "labels.jsonl"
    summary = prmkit.api.bench_set(output=str(out), problems=6, levels="2,3", seed=4, pools=str(pools),
                               labels=str(labels), slips="arithmetic,corrected")
    got = list(read_records(pools, Pool.from_dict))
    truth = {t.trace_id: t for t in read_records(labels, StepLabels.from_dict)}
    assert [p.problem.question for p in got] == _questions(out)
    assert summary["traces"] == len(truth) == 6 * 3  # one right trace and one per slip kind
    for pool in got:
        for trace in pool.traces:
            t = truth[trace.id]
            assert first_wrong(check_steps(pool.problem, trace.steps)) == t.params["first_error"]
            assert t.labels == [int(k < t.params["first_error"] or t.params["first_error"] < 0)
                                for k in range(len(trace.steps))]
    with pytest.raises(ValueError, match="together"):
        BenchSetConfig(output=str(out), pools=str(pools))
    with pytest.raises(ValueError, match="unknown slip"):
        BenchSetConfig(output=str(out), slips="typo")


def test_an_empty_exclude_file_is_refused_and_a_json_list_is_read_as_one_document(tmp_path, capsys):
    """An empty --exclude file excluded nothing, silently (a set not yet written, say); a .json list of problems
    was read as JSON lines. `prmkit sft --exclude` refuses the empty file before any model loads, too."""
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    with pytest.raises(DataError, match=r"--exclude .*empty.jsonl: the file is empty"):
        write_bench_set(BenchSetConfig(output=str(tmp_path / "x.jsonl"), exclude=[str(empty)]))
    assert main(["sft", "--output", str(tmp_path / "sft"), "--exclude", str(empty)]) == 2
    assert "empty.jsonl: the file is empty" in capsys.readouterr().err and not (tmp_path / "sft").exists()
    listed = tmp_path / "set.json"
    listed.write_text(json.dumps([{"question": "What is 1 + 2 ?"}, {"problem": {"question": "What is 3 + 4 ?"}}],
                                 indent=1))
    assert excluded_questions([listed]) == {"What is 1 + 2 ?", "What is 3 + 4 ?"}
