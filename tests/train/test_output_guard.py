"""`prmkit train` never trains over something it would destroy: a non-empty output is refused unless it holds
the checkpoints of this same run and `--resume` is given, or `--overwrite` is given."""

from __future__ import annotations

import json

import pytest

from helpers import tiny_training_inputs
from prmkit.cli.main import main
from prmkit.models.reward import RUN_RECORD


@pytest.fixture
def inputs(tmp_path) -> list[str]:
    return tiny_training_inputs(tmp_path)


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
    (out / RUN_RECORD).write_text(json.dumps(run))
    assert _train(inputs, tiny_base, out, "--resume") == 2
    err = capsys.readouterr().err
    assert "holds a run with other settings" in err and "train.lr: 0.01 -> 0.001" in err
