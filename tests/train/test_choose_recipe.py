"""The machine's recipe applies when no training setting is chosen; run-keeping flags (threads, checkpoints) keep it."""

from __future__ import annotations

import argparse
from dataclasses import fields

from prmkit.cli.train import choose_recipe
from prmkit.train.config import TrainConfig


def _args(**given) -> argparse.Namespace:
    return argparse.Namespace(**{"config": None} | {f.name: None for f in fields(TrainConfig)} | given)


def test_recipe_kept_beside_run_flags_and_replaced_by_a_training_setting(capsys):
    plain = _args()
    choose_recipe(plain)
    assert plain.config.endswith(("cpu.yaml", "gpu.yaml"))
    run_flags = _args(threads=1, save_strategy="no", seed=3, resume=True)
    choose_recipe(run_flags)
    assert run_flags.config == plain.config
    assert capsys.readouterr().out.count("flags override it") == 2
    chosen = _args(lr=1e-5, save_strategy="no")
    choose_recipe(chosen)
    assert chosen.config is None and capsys.readouterr().out == ""
    own = _args(config="mine.yaml")
    choose_recipe(own)
    assert own.config == "mine.yaml"
