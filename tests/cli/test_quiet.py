"""`--quiet` silences every progress bar, the Trainer's too: tqdm reads TQDM_DISABLE once, when it is imported, so
`prmkit` sets it before the verb's module imports tqdm, and `LossProgress` reads it again when it makes its bars."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from helpers import tiny_training_inputs


def _train_args(tmp_path, tiny_base: str) -> list[str]:
    return [*tiny_training_inputs(tmp_path), "--model", tiny_base, "--max-steps", "3", "--held-out", "1",
            "--eval-strategy", "steps", "--eval-steps", "2", "--save-strategy", "no"]


def _prmkit(*argv: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("TQDM_DISABLE", "HF_HUB_DISABLE_PROGRESS_BARS",
                                                             "TRANSFORMERS_VERBOSITY")}
    return subprocess.run([sys.executable, "-m", "prmkit.cli.main", *argv], capture_output=True, text=True, env=env,
                          timeout=600)


@pytest.mark.slow
def test_quiet_train_shows_no_trainer_bar(tmp_path, tiny_base):
    args = _train_args(tmp_path, tiny_base)
    loud = _prmkit("train", "prm", *args, "--output", str(tmp_path / "loud"))
    assert loud.returncode == 0, loud.stderr
    assert "3/3 [" in loud.stderr  # the Trainer's bar, when not quiet
    quiet = _prmkit("train", "prm", "--quiet", *args, "--output", str(tmp_path / "quiet"))  # after the verb
    assert quiet.returncode == 0, quiet.stderr
    assert "it/s" not in quiet.stderr and "/3 [" not in quiet.stderr, quiet.stderr
    assert "held-out loss" in quiet.stdout  # the held-out check is a line of its own, printed quiet or not


def test_loss_progress_reads_tqdm_disable_when_it_makes_its_bars(monkeypatch, capsys):
    from transformers import TrainerControl, TrainerState

    from prmkit.train.progress import LossProgress

    monkeypatch.setenv("TQDM_DISABLE", "1")  # set after tqdm was imported (as `prmkit --quiet` may)
    progress, state = LossProgress(), TrainerState(max_steps=3)
    progress.on_train_begin(None, state, TrainerControl())
    progress.on_prediction_step(None, state, TrainerControl(), eval_dataloader=[0, 1])
    assert progress.training_bar.disable and progress.prediction_bar.disable
    state.global_step = 1
    progress.on_step_end(None, state, TrainerControl())
    progress.on_log(None, state, TrainerControl(), logs={"loss": 0.5, "learning_rate": 1e-3})
    progress.on_train_end(None, state, TrainerControl())
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("where", ["before", "after"])
def test_quiet_is_set_before_the_verb_module_imports_tqdm(where, tmp_path):
    """`prmkit train`'s module imports torch, which imports tqdm: quiet must be on by then, for every bar."""
    argv = ["train", "prm", "--output", str(tmp_path / "o"), "--config", str(tmp_path / "missing.yaml")]
    argv = ["--quiet", *argv] if where == "before" else [*argv, "--quiet"]
    code = ("import sys; from prmkit.cli.main import main; assert 'tqdm' not in sys.modules; "
            f"assert main({argv!r}) == 2; assert 'tqdm' in sys.modules; "
            "from tqdm.auto import tqdm; print(tqdm(total=1).disable)")
    env = {k: v for k, v in os.environ.items() if k != "TQDM_DISABLE"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert out.stdout.strip() == "True", out.stderr
