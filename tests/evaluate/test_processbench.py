"""`prmkit data corrupt` then `prmkit evaluate processbench` through the real CLI, with hand-made step scores."""

import json

from helpers import write_jsonl
from prmkit.cli.main import main
from prmkit.data.steplevel import read_step_records

GSM8K = [{"question": f"Ann has {a} apples and buys {b} bags of {c}. How many apples does she have?",
          "answer": f"The bags hold {b}*{c} = <<{b}*{c}={b * c}>>{b * c} apples.\n"
                    f"She has {a}+{b * c} = <<{a}+{b * c}={a + b * c}>>{a + b * c} apples.\n#### {a + b * c}"}
         for a, b, c in [(7, 3, 4), (11, 5, 6), (13, 2, 9), (17, 4, 8), (19, 3, 7), (23, 6, 5)]]


def _scores(path, records, at_error: float, elsewhere: float) -> None:
    rows = [{"trace_id": r.id, "method": "x", "scores": [at_error if i == r.first_error else elsewhere
                                                          for i in range(len(r.steps))],
             "labels": [0 if i == r.first_error else 1 for i in range(len(r.steps))]} for r in records]
    write_jsonl(path, rows)


def test_corrupt_then_processbench_cli(tmp_path, capsys):
    src = write_jsonl(tmp_path / "gsm8k.jsonl", GSM8K)
    bench, pools = tmp_path / "bench.jsonl", tmp_path / "pools.jsonl"
    assert main(["data", "corrupt", "--input", str(src), "--output", str(bench), "--pools", str(pools),
                 "--seed", "0"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["usable"] == 6 and report["records"] == 12 and sum(report["error_steps"].values()) == 6
    assert set(report["error_steps"]) == {"0", "1"}  # balanced: both positions used
    records = read_step_records(bench)
    _scores(tmp_path / "oracle.jsonl", records, 0.1, 0.9)
    write_jsonl(tmp_path / "blind.jsonl", [{"id": r.id, "step_scores": [0.9] * len(r.steps)} for r in records])
    out = tmp_path / "pb.json"
    assert main(["evaluate", "processbench", "--benchmark", str(bench), "--scores", f"oracle={tmp_path}/oracle.jsonl",
                 "--scores", f"blind={tmp_path}/blind.jsonl", "--choose-on", "0:3", "--report-on", "3:",
                 "--output", str(out)]) == 0
    assert "error acc" in capsys.readouterr().out
    rows = {r["scorer"]: r for r in json.loads(out.read_text())["rows"]}
    assert rows["oracle"]["f1"] == 1.0 and rows["oracle (labels)"]["f1"] == 1.0
    assert (rows["blind"]["error_accuracy"], rows["blind"]["correct_accuracy"]) == (0.0, 1.0)
    assert rows["oracle"]["n_error"] == 3 and rows["oracle"]["n_correct"] == 3


def test_processbench_refuses_overlap_and_bad_lengths(tmp_path):
    src = write_jsonl(tmp_path / "gsm8k.jsonl", GSM8K)
    bench = tmp_path / "bench.jsonl"
    main(["data", "corrupt", "--input", str(src), "--output", str(bench)])
    records = read_step_records(bench)
    _scores(tmp_path / "s.jsonl", records, 0.1, 0.9)
    args = ["evaluate", "processbench", "--benchmark", str(bench), "--scores", f"{tmp_path}/s.jsonl"]
    assert main([*args, "--choose-on", "0:4", "--report-on", "3:"]) == 2  # overlap: tau not held out
    write_jsonl(tmp_path / "s.jsonl", [{"id": r.id, "step_scores": [0.5]} for r in records])
    assert main([*args, "--choose-on", "0:3", "--report-on", "3:"]) == 2  # 1 score for 2 steps


def test_scorers_are_compared_on_the_records_every_one_scored(tmp_path, capsys):
    src = write_jsonl(tmp_path / "gsm8k.jsonl", GSM8K)
    bench = tmp_path / "bench.jsonl"
    main(["data", "corrupt", "--input", str(src), "--output", str(bench)])
    records = read_step_records(bench)
    _scores(tmp_path / "full.jsonl", records, 0.1, 0.9)
    _scores(tmp_path / "part.jsonl", records[2:], 0.1, 0.9)  # lacks two records of the choose range
    out = tmp_path / "pb.json"
    capsys.readouterr()
    assert main(["evaluate", "processbench", "--benchmark", str(bench), "--scores", f"full={tmp_path}/full.jsonl",
                 "--scores", f"part={tmp_path}/part.jsonl", "--choose-on", "0:3", "--report-on", "3:",
                 "--output", str(out)]) == 0
    assert "part lacks 2" in capsys.readouterr().out
    report = json.loads(out.read_text())
    assert report["dropped"] == {"full": 0, "part": 2} and report["compared_records"] == len(records) - 2
    rows = {r["scorer"]: r for r in report["rows"]}
    assert rows["full"]["n_error"] + rows["full"]["n_correct"] == rows["part"]["n_error"] + rows["part"]["n_correct"]


def test_an_empty_benchmark_is_named_not_blamed_on_the_scores(tmp_path, capsys):
    (tmp_path / "bench.jsonl").write_text("")
    scores = write_jsonl(tmp_path / "s.jsonl", [{"id": "b0", "step_scores": [0.5]}])
    assert main(["evaluate", "processbench", "--benchmark", str(tmp_path / "bench.jsonl"), "--scores", f"X={scores}",
                 "--choose-on", "0:1", "--report-on", "1:2"]) == 2
    err = capsys.readouterr().err.strip()
    assert f"benchmark {tmp_path / 'bench.jsonl'}: no records (the file is empty)" in err and "lacks" not in err
