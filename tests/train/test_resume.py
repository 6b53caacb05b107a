"""`prmkit train --resume` after `kill -9` mid-training continues from the last complete checkpoint and ends where
an uninterrupted run ends (same held-out losses): the Trainer restores weights, optimiser, scheduler and data order."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from helpers import write_jsonl
from prmkit.cli.main import main
from tolerances import MODEL_ABS

Q = "Tom has 3 apples and buys 4 more . How many apples does he have now ?"
GOOD, BAD = ["3 + 4 = 7", "so the answer is 7"], ["3 + 4 = 8 wrong step", "so the answer is 8 mistake"]


def write_data(tmp_path):
    pools, labels = [], []
    for k in range(5):
        traces = [{"id": f"p{k}/{j}", "problem_id": f"p{k}", "steps": steps, "answer": ans, "correct": ok}
                  for j, (steps, ans, ok) in enumerate([(GOOD, "7", True), (BAD, "8", False)])]
        pools.append({"problem": {"id": f"p{k}", "question": Q, "answer": "7"}, "traces": traces})
        labels += [{"trace_id": t["id"], "method": "mcnig", "scores": [0.0, 0.0], "labels": [int(t["correct"])] * 2,
                    "problem_id": t["problem_id"]} for t in traces]
    return write_jsonl(tmp_path / "pools.jsonl", pools), write_jsonl(tmp_path / "labels.jsonl", labels)


@pytest.mark.slow
def test_resume_after_kill_ends_like_an_uninterrupted_run(tiny_base, tmp_path):
    pools, labels = write_data(tmp_path)
    args = ["train", "prm", "--pools", pools, "--labels", labels, "--held-out", "1", "--model", tiny_base,
            "--epochs", "4", "--lr", "1e-2", "--batch-traces", "2", "--save-strategy", "steps", "--save-steps", "2",
            "--freeze-layers", "0"]  # the CPU recipe freezes 4 layers: all of the tiny model's
    killed = tmp_path / "killed"
    proc = subprocess.Popen([sys.executable, "-m", "prmkit.cli.main", *args, "--output", str(killed)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=os.environ.copy())
    deadline = time.time() + 240
    saved = [killed / f"checkpoint-{n}" / "trainer_state.json" for n in range(4, 16, 2)]
    while not any(p.is_file() for p in saved) and proc.poll() is None:  # a checkpoint between 4 and 14
        assert time.time() < deadline, "no checkpoint within 240 s"
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert not (killed / "train_log.json").exists()  # it died mid-training
    assert main([*args, "--output", str(killed), "--resume"]) == 0
    resumed = json.loads((killed / "train_log.json").read_text())
    start = int(resumed["resumed_from"].rsplit("-", 1)[1])
    assert 4 <= start < 16
    assert [r["step"] for r in resumed["log_history"] if "loss" in r] == list(range(1, 17))  # each step once
    before = [r["seconds"] for r in resumed["log_history"] if r["step"] <= start][-1]  # the killed process's, kept
    assert before > 0 and resumed["train_seconds"] == pytest.approx(before + resumed["seconds_this_run"], abs=1.0)
    assert main([*args, "--output", str(tmp_path / "whole")]) == 0
    whole = json.loads((tmp_path / "whole" / "train_log.json").read_text())
    after = {h["step"]: h["loss"] for h in resumed["history"]}  # the checks after the checkpoint it resumed from
    assert after == pytest.approx({h["step"]: h["loss"] for h in whole["history"] if h["step"] > start}, abs=MODEL_ABS)
    assert whole["history"][-1]["loss"] < whole["history"][0]["loss"]


def test_a_checkpoint_whose_state_file_was_cut_short_is_passed_over(tmp_path):
    """A kill while the Trainer writes trainer_state.json leaves the file empty or cut: that checkpoint is not the
    one to resume from (a resume from it stopped with 'Expecting value')."""
    from prmkit.train.recipe import last_checkpoint

    for n, text in ((2, '{"global_step": 2}'), (4, '{"global_st'), (6, "")):
        (tmp_path / f"checkpoint-{n}").mkdir()
        (tmp_path / f"checkpoint-{n}" / "trainer_state.json").write_text(text)
    (tmp_path / "checkpoint-8").mkdir()  # no state file at all
    assert last_checkpoint(tmp_path) == str(tmp_path / "checkpoint-2")
