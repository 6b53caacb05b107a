"""`prmkit train` never trains over something it would destroy: a non-empty output is refused unless it holds
the checkpoints of this same run and `--resume` is given, or `--overwrite` is given."""

from __future__ import annotations

import json

import pytest

from helpers import write_jsonl
from prmkit.cli.main import main
from prmkit.train.run import RUN_FILE

Q = "Tom has 3 apples and buys 4 more . How many apples does he have now ?"


@pytest.fixture
def inputs(tmp_path) -> list[str]:
    pools, labels = [], []
    for k in range(3):
        pid = f"p{k}"
        traces = [{"id": f"{pid}/{j}", "problem_id": pid, "steps": ["3 + 4 = 7", f"answer {7 + j}"],
                   "answer": str(7 + j), "correct": j == 0} for j in range(2)]
        pools.append({"problem": {"id": pid, "question": Q, "answer": "7"}, "traces": traces})
        labels += [{"trace_id": t["id"], "method": "mcnig", "scores": [0.5, 0.5], "labels": [1, int(t["correct"])],
                    "problem_id": pid} for t in traces]
    return ["--pools", write_jsonl(tmp_path / "pools.jsonl", pools),
            "--labels", write_jsonl(tmp_path / "labels.jsonl", labels)]


def _train(inputs: list[str], tiny_base: str, out, *extra: str) -> int:
    return main(["--quiet", "train", "prm", *inputs, "--model", tiny_base, "--max-steps", "1", "--lr", "1e-3",
                 "--save-strategy", "no", "--output", str(out), *extra])


def test_a_folder_of_other_files_is_never_trained_over(inputs, tiny_base, tmp_path, capsys):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    assert _train(inputs, tiny_base, out) == 2
    assert "is not empty: it holds files of something else" in capsys.readouterr().err
    assert _train(inputs, tiny_base, out, "--resume") == 2
    assert [p.name for p in out.iterdir()] == ["notes.txt"]  # untouched, no model written


def test_a_finished_model_is_replaced_only_with_overwrite(inputs, tiny_base, tmp_path, capsys):
    out = tmp_path / "prm"
    assert _train(inputs, tiny_base, out) == 0
    before = (out / "model.safetensors").read_bytes()
    capsys.readouterr()
    assert _train(inputs, tiny_base, out) == 2
    err = capsys.readouterr().err
    assert "holds a finished model (train_log.json)" in err and "--overwrite" in err
    assert (out / "model.safetensors").read_bytes() == before
    assert _train(inputs, tiny_base, out, "--overwrite", "--seed", "1") == 0
    assert json.loads((out / "train_log.json").read_text())["train_config"]["seed"] == 1


def test_resume_continues_only_the_same_run(inputs, tiny_base, tmp_path, capsys):
    out = tmp_path / "run"
    out.mkdir()
    # what an interrupted run leaves: its settings, written when it started (and checkpoints)
    assert _train(inputs, tiny_base, tmp_path / "done") == 0
    identity = json.loads((tmp_path / "done" / "train_log.json").read_text())
    assert identity["train_config"]["lr"] == 1e-3
    (out / "checkpoint-1").mkdir()
    run = {"kind": "prm", "train": {"lr": 1e-2}}
    (out / RUN_FILE).write_text(json.dumps(run))
    assert _train(inputs, tiny_base, out, "--resume") == 2
    err = capsys.readouterr().err
    assert "holds a run with other settings" in err and "train.lr 0.01 -> 0.001" in err
