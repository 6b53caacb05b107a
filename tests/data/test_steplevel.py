import pytest

from helpers import write_jsonl
from prmkit.data.jsonl import DataError
from prmkit.data.steplevel import STEP_READERS, StepRecord, read_step_records, write_math_shepherd, write_processbench

RECORD = StepRecord("gsm8k-train-0/corrupt", "Natalia sold 48 clips...", ["48/2 = 25", "48+25 = 73"], 0, False,
                    "gsm8k-train-0", "72", "73", {"kind": "off_by"})


def test_processbench_roundtrip_and_plain_records(tmp_path):
    write_processbench(tmp_path / "b.jsonl", [RECORD])
    assert read_step_records(tmp_path / "b.jsonl") == [RECORD]
    plain = {"id": "gsm8k-3", "generator": "Qwen2-7B", "problem": "p", "steps": ["a", "b", "c"], "label": 2,
             "final_answer_correct": False}
    [r] = STEP_READERS["processbench"](write_jsonl(tmp_path / "pb.jsonl", [plain]))
    assert (r.id, r.first_error, r.meta) == ("gsm8k-3", 2, {"generator": "Qwen2-7B"})
    bad = write_jsonl(tmp_path / "bad.jsonl", [plain, plain | {"label": 3}])
    with pytest.raises(DataError, match=r"bad\.jsonl:2: field 'label'"):
        read_step_records(bad)


def _prm800k_lines():
    line = {"question": {"problem": "2+2?", "ground_truth_answer": "4", "pre_generated_answer": "5"},
            "label": {"finish_reason": "found_error", "steps": [
                {"completions": [{"text": "2+2", "rating": 1}], "chosen_completion": 0, "human_completion": None},
                {"completions": [{"text": "maybe", "rating": 0}], "chosen_completion": 0, "human_completion": None},
                {"completions": [{"text": "= 5", "rating": -1}], "chosen_completion": None,
                 "human_completion": None}]}}
    ok = line | {"label": {"steps": line["label"]["steps"][:2]}}
    return line, ok


def test_prm800k_reader(tmp_path):
    line, ok = _prm800k_lines()
    a, b = STEP_READERS["prm800k"](write_jsonl(tmp_path / "p.jsonl", [line, ok]))
    assert (a.steps, a.first_error, a.gold_answer, a.answer) == (["2+2", "maybe", "= 5"], 2, "4", "5")
    assert b.first_error == -1 and a.meta["ratings"] == [1, 0, -1]


def test_math_shepherd_roundtrip(tmp_path):
    line = {"input": "Janet has 3 ducks. Step 1: 3*2=6 ки\nStep 2: 6+1=8 ки\nStep 3: The answer is: 8 ки",
            "label": "Janet has 3 ducks. Step 1: 3*2=6 +\nStep 2: 6+1=8 -\nStep 3: The answer is: 8 -", "task": "GSM8K"}
    [r] = STEP_READERS["math-shepherd"](write_jsonl(tmp_path / "m.jsonl", [line]))
    assert r.problem == "Janet has 3 ducks." and r.first_error == 1
    assert r.steps == ["Step 1: 3*2=6", "Step 2: 6+1=8", "Step 3: The answer is: 8"]
    write_math_shepherd(tmp_path / "out.jsonl", [RECORD])
    [back] = STEP_READERS["math-shepherd"](tmp_path / "out.jsonl")
    assert back.first_error == 0 and back.problem == RECORD.problem and len(back.steps) == 2


@pytest.mark.parametrize("body", ["", "\n  \n"])
def test_an_empty_benchmark_is_refused_by_name(body, tmp_path):
    (tmp_path / "bench.jsonl").write_text(body)
    with pytest.raises(DataError, match=r"benchmark .*bench\.jsonl: no records \(the file is empty\)"):
        read_step_records(tmp_path / "bench.jsonl")
