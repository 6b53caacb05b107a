"""keep_settings / settings_diff: a re-run continues only the run it resumes, naming what differs."""

from __future__ import annotations

import json

import pytest

from prmkit.data.resume_settings import keep_settings, settings_diff


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
