import json

import pytest

from helpers import pool_dict, write_jsonl
from prmkit.data import AppendOnlyWriter, DataError, Pool, StepLabels, Trace, read_records
from prmkit.data.formats import detect_format, read_pools
from prmkit.data.gsm8k import read_gsm8k_candidates, split_solution, strip_annotations
from prmkit.data.trl import read_trl, to_trl


def test_roundtrip_and_validation(tmp_path):
    pool = Pool.from_dict(pool_dict("p1", "1+1?", "2", [(["1+1=2"], "2", True)]))
    assert Pool.from_dict(json.loads(json.dumps(pool.to_dict()))) == pool
    bad = pool_dict("p1", "1+1?", "2", [(["a"], "2", True)])
    bad["traces"][0]["steps"] = "not a list"
    path = write_jsonl(tmp_path / "x.jsonl", [pool.to_dict(), bad])
    with pytest.raises(DataError, match=r"x.jsonl:2: traces\[0\]: .*'steps'"):
        list(read_records(path, Pool.from_dict))


def test_invalid_json_names_file_and_line(tmp_path):
    (tmp_path / "t.jsonl").write_text(json.dumps(Trace("a", "p", [], None).to_dict()) + "\n{oops\n")
    with pytest.raises(DataError, match=r"t\.jsonl:2: invalid JSON"):
        list(read_records(tmp_path / "t.jsonl", Trace.from_dict))


def test_gsm8k_steps_strip_annotations():
    steps, answer = split_solution("She has 16 - 3 = <<16-3=13>>13 eggs\nShe makes 13 * 2 = $<<13*2=26>>26\nA: 26")
    assert steps == ["She has 16 - 3 = 13 eggs", "She makes 13 * 2 = $26"] and answer == "26"
    assert strip_annotations("x <<1+1=2>>2") == "x 2"
    assert split_solution("a\n#### 1,000")[1] == "1000"


def test_gsm8k_candidates_real_file(shared):
    pools = list(read_gsm8k_candidates(shared / "data/gsm8k/candidates_dev.jsonl"))
    assert len(pools) == 660 and all(len(p.traces) == 4 for p in pools)
    assert pools[0].problem.answer == "18" and pools[0].traces[3].correct is True
    assert detect_format(shared / "data/gsm8k/candidates_dev.jsonl") == "gsm8k-candidates"
    assert detect_format(shared / "data/gsm8k/train.jsonl") == "gsm8k"


def test_a_problem_file_reads_as_pools_without_traces(tmp_path):
    from prmkit.data.bench import bench_problems

    problems = bench_problems(4, levels=(1, 2), seed=3)
    path = write_jsonl(tmp_path / "problems.jsonl", [p.to_dict() for p in problems])
    assert detect_format(path) == "problem"  # not GSM8K: its answer has no '#### x' line
    pools = list(read_pools(path))
    assert [p.problem for p in pools] == problems and all(p.traces == [] for p in pools)
    assert pools[1].origin.endswith("problems.jsonl:2")
    bad = write_jsonl(tmp_path / "bad.jsonl", [problems[0].to_dict(), {**problems[1].to_dict(), "meta": 3}])
    with pytest.raises(DataError, match=r"bad\.jsonl:2"):
        list(read_pools(bad))


def test_trl_roundtrip_keeps_float_labels(tmp_path):
    pool = Pool.from_dict(pool_dict("p", "q?", "3", [(["a", "b"], "3", True)]))
    labels = StepLabels("p/0", "mcnig", [0.25, 0.75], [0, 1])
    soft = list(to_trl([pool], [labels], lambda lab: lab.scores, keep_scores=True))
    assert soft[0]["labels"] == [0.25, 0.75] and soft[0]["completions"] == ["a", "b"]
    assert soft[0]["scores"] == [0.25, 0.75] and soft[0]["threshold"] is None
    path = write_jsonl(tmp_path / "trl.jsonl", soft)
    (back_pool, back_labels), = read_trl(path)
    assert back_labels.scores == [0.25, 0.75] and isinstance(back_labels.scores[0], float)
    assert back_pool.traces[0].steps == ["a", "b"] and detect_format(path) == "trl"
    assert [p.problem.question for p in read_pools(path)] == ["q?"]


def test_append_only_writer_resumes_after_torn_line(tmp_path):
    path = tmp_path / "out.jsonl"
    with AppendOnlyWriter(path) as w:
        assert w.write({"id": "a", "v": 1}) and not w.write({"id": "a", "v": 2})
    with open(path, "a") as fh:
        fh.write('{"id": "b", "v"')  # a crash in the middle of a line
    with AppendOnlyWriter(path) as w:
        assert w.done == {"a"}
        w.write({"id": "b", "v": 3})
    assert [json.loads(x)["id"] for x in path.read_text().splitlines()] == ["a", "b"]


def test_torn_last_line_is_cut_by_reading_back_from_the_end(tmp_path):
    from prmkit.data.jsonl import _cut_torn_line

    path = tmp_path / "out.jsonl"
    whole = b'{"id": "a"}\n{"id": "b"}\n'
    for torn, kept in ((b"", whole), (b'{"id": "c", "long": "' + b"x" * 50, whole), (b"", b"")):
        path.write_bytes(whole + torn if kept else torn + b'{"no newline at all"')
        _cut_torn_line(path, chunk=4)  # the torn line spans many chunks
        assert path.read_bytes() == kept


def test_demo_pools_have_right_and_wrong_traces():
    from prmkit.data.demo_pools import demo_pools

    pools = list(read_pools("demo"))
    assert len(pools) == 20 and pools == demo_pools()
    for pool in pools:
        assert [t.correct for t in pool.traces] == [True, False, False, False]
        assert pool.traces[0].answer == pool.problem.answer
        assert all(t.answer != pool.problem.answer for t in pool.traces[1:])
        assert all(t.steps[-1] == f"The answer is {t.answer}." for t in pool.traces)
