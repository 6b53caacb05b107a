"""keep_settings / settings_diff: a re-run continues only the run it resumes, naming what differs."""

from __future__ import annotations

import json

import pytest

from prmkit.data.manifest import keep_settings, settings_diff


def test_diff_names_each_setting_nested_and_one_sided():
    old = {"k": 4, "train": {"lr": 0.01, "epochs": 3}, "gone": True}
    new = {"k": 4, "train": {"lr": 0.001, "epochs": 3}, "added": "x"}
    assert settings_diff(old, new) == ["added: None -> 'x'", "gone: True -> None", "train.lr: 0.01 -> 0.001"]
    assert settings_diff(old, new, skip={"gone", "added"}) == ["train.lr: 0.01 -> 0.001"]
    assert settings_diff(old, old) == []


def test_first_run_writes_resume_passes_other_settings_refused(tmp_path):
    path = tmp_path / "run" / "settings.json"
    keep_settings(path, {"problems": 96, "threads": 2}, "a bench")
    assert json.loads(path.read_text()) == {"problems": 96, "threads": 2}
    keep_settings(path, {"problems": 96, "threads": 1}, "a bench", skip={"threads"})  # may change on resume
    assert json.loads(path.read_text())["threads"] == 1
    with pytest.raises(ValueError, match=r"run holds a bench made with other settings \(problems: 96 -> 48\): "
                                         r"choose another --output"):
        keep_settings(path, {"problems": 48, "threads": 1}, "a bench")
    assert json.loads(path.read_text())["problems"] == 96  # the refused run wrote nothing


def test_upgrade_fills_what_an_older_file_lacks(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"model": "m"}))  # made before `template` existed, with the few-shot prompt
    keep_settings(path, {"model": "m", "template": None}, "a warm start", upgrade=lambda old: {"template": None} | old)
    with pytest.raises(ValueError, match=r"template: None -> 'zero'"):
        keep_settings(path, {"model": "m", "template": "zero"}, "a warm start",
                      upgrade=lambda old: {"template": None} | old)


def test_one_rule_names_what_a_resumed_run_may_change_from_the_fields_metadata():
    """Each verb's fields a re-run may change, from `may_change` alone (they used to be six sets kept apart)."""
    from prmkit.data.manifest import fixed_settings, may_change
    from prmkit.experiments.bench import BenchConfig
    from prmkit.experiments.payoff import PayoffConfig
    from prmkit.experiments.sft import SFTRunConfig
    from prmkit.models.reward import RewardModelConfig
    from prmkit.rl.config import RLConfig
    from prmkit.search.config import BeamConfig
    from prmkit.train.config import TrainConfig, TrainInputs

    saving = {"resume", "threads", "save_steps", "save_total_limit"}
    assert may_change(TrainConfig, RewardModelConfig, TrainInputs) == saving | {
        "max_steps", "eval_strategy", "eval_steps", "save_strategy", "logging_steps", "report_to", "overwrite",
        "allow_duplicates", "require_all_labels"}
    assert may_change(RLConfig) == saving | {"output", "steps", "heldout_steps", "heldout_before"}
    assert may_change(SFTRunConfig) == saving | {"output", "logging_steps"}
    assert may_change(BenchConfig) == {"output", "problems", "labelers", "scorers", "students", "bootstrap", "label"}
    assert may_change(PayoffConfig) == {"output", "threads", "keep"}
    assert set(fixed_settings(BeamConfig(prm="runs/prm"))) == {  # the scorer is compared resolved, apart
        "model", "backend", "chat", "template", "k", "width", "max_steps", "max_new_tokens", "temperature", "top_p",
        "seed", "scorer_options", "aggregation"}
