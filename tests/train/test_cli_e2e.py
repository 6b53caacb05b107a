"""train -> score -> evaluate through the real CLI on the tiny model; the PRM must beat majority voting."""

import json

import pytest

from helpers import write_jsonl
from prmkit.cli.main import main

Q = "Tom has 3 apples and buys 4 more . How many apples does he have now ?"
GOOD, BAD = ["3 + 4 = 7", "so the answer is 7"], ["3 + 4 = 8 wrong step", "so the answer is 8 mistake"]


def pool(k: int) -> dict:
    pid = f"p{k}"
    traces = [{"id": f"{pid}/{j}", "problem_id": pid, "steps": BAD, "answer": "8", "correct": False} for j in range(3)]
    traces.insert(k % 4, {"id": f"{pid}/good", "problem_id": pid, "steps": GOOD, "answer": "7", "correct": True})
    return {"problem": {"id": pid, "question": Q, "answer": "7"}, "traces": traces}


def test_train_score_evaluate(tiny_base, tmp_path, capsys):
    pools = [pool(k) for k in range(6)]
    labels = [{"trace_id": t["id"], "method": "mcnig", "scores": [0.9, 0.9] if t["correct"] else [0.2, 0.1],
               "labels": [1, 1] if t["correct"] else [0, 0], "problem_id": t["problem_id"]}
              for p in pools for t in p["traces"]]
    pools_path = write_jsonl(tmp_path / "pools.jsonl", pools)
    labels_path = write_jsonl(tmp_path / "labels.jsonl", labels)
    ckpt, scores = tmp_path / "prm", tmp_path / "scores.jsonl"
    assert main(["train", "prm", "--pools", pools_path, "--labels", labels_path, "--problems-range", "0:4",
                 "--held-out", "1", "--model", tiny_base, "--epochs", "6", "--lr", "1e-2", "--batch-traces", "4",
                 "--freeze-layers", "0",  # the CPU recipe freezes 4 layers: all of the tiny model's
                 "--output", str(ckpt)]) == 0
    log = json.loads((ckpt / "train_log.json").read_text())
    assert log["train_traces"] == 12 and len(log["history"]) == 6 and log["history"][-1]["accuracy"] == 1.0
    assert main(["score", "--model", str(ckpt), "--input", pools_path, "--problems-range", "4:6",
                 "--output", str(scores)]) == 0
    records = [json.loads(line) for line in scores.read_text().splitlines()]
    assert len(records) == 8 and {r["problem_id"] for r in records} == {"p4", "p5"}
    assert all(len(r["step_scores"]) == 2 and r["score"] == pytest.approx(r["step_scores"][0] * r["step_scores"][1])
               for r in records)
    # re-running skips what is already scored (the checkpoint named another way is the same one)
    assert main(["score", "--model", f"{ckpt}/", "--input", pools_path, "--output", str(scores),
                 "--problems-range", "4:6"]) == 0
    assert len(scores.read_text().splitlines()) == 8
    capsys.readouterr()
    # scores of another aggregation are not mixed into the file: refused, nothing written
    assert main(["score", "--model", str(ckpt), "--input", pools_path, "--output", str(scores),
                 "--aggregation", "min"]) == 2
    assert "was scored with other settings (aggregation: 'prod' -> 'min')" in capsys.readouterr().err
    assert len(scores.read_text().splitlines()) == 8
    out = tmp_path / "bok.json"
    assert main(["evaluate", "bok", "--scores", f"PRM={scores}", "--output", str(out),
                 "--plot", str(tmp_path / "bok.png")]) == 0
    rows = {(r["method"], r["k"]): r["mean"] for r in json.loads(out.read_text())["rows"]}
    assert rows[("single", 1)] == 0.25 and rows[("majority", 4)] == 0.0 and rows[("oracle", 2)] == 0.5
    assert rows[("PRM", 4)] == 1.0 and rows[("PRM", 2)] == 0.5 and rows[("weighted:PRM", 4)] == 1.0
    assert (tmp_path / "bok.png").stat().st_size > 1000
    assert "| PRM |" in capsys.readouterr().out


def test_train_refuses_unknown_config_keys(tmp_path, capsys):
    cfg = tmp_path / "run.yaml"
    cfg.write_text("lr: 0.001\nkind: orm\n")
    assert main(["train", "prm", "--labels", "x.jsonl", "--output", str(tmp_path / "o"), "--config", str(cfg)]) == 2
    assert "unknown keys ['kind']" in capsys.readouterr().err


def test_train_on_examples_in_hand_matches_training_on_their_files(tiny_base, tmp_path):
    """A recipe that holds its pools and labels passes the examples to `train` (no file round-trip): the same
    model as `train` reading the same data from files; files and examples together are refused."""
    from prmkit.data.records import Pool, StepLabels
    from prmkit.train.data import build_examples
    from prmkit.train.run import train

    pools = [pool(k) for k in range(4)]
    labels = [{"trace_id": t["id"], "method": "mcnig", "scores": [0.9, 0.9] if t["correct"] else [0.2, 0.1],
               "labels": [1, 1] if t["correct"] else [0, 0], "problem_id": t["problem_id"]}
              for p in pools for t in p["traces"]]
    files = {"pools": write_jsonl(tmp_path / "pools.jsonl", pools),
             "labels": write_jsonl(tmp_path / "labels.jsonl", labels)}
    settings = {"model": tiny_base, "epochs": 2, "lr": 1e-2, "batch_traces": 4, "held_out": 1, "seed": 3}
    examples = build_examples([Pool.from_dict(p) for p in pools], [StepLabels.from_dict(r) for r in labels], "prm")
    in_hand = train("prm", tmp_path / "a", settings, log=lambda _: None, examples=examples)
    from_files = train("prm", tmp_path / "b", settings | files, log=lambda _: None)
    assert in_hand["train_traces"] == from_files["train_traces"] == 12
    assert [h["loss"] for h in in_hand["history"]] == [h["loss"] for h in from_files["history"]]
    with pytest.raises(ValueError, match="not both"):
        train("prm", tmp_path / "c", settings | files, log=lambda _: None, examples=examples)
