"""`--heldout-before RUN`: the step-0 held-out point taken from another run when everything that fixes it is the
same (policy, held-out problems, samples, sampling, template, seed), refused naming the setting that differs."""

from __future__ import annotations

import json
from dataclasses import asdict, replace
from pathlib import Path

import pytest

from prmkit.rl.config import RLConfig
from prmkit.rl.data import select_problems
from prmkit.rl.heldout_curve import HeldoutCurve, problems_fingerprint


def _measured(path: Path, config: RLConfig) -> dict:
    """A run directory as `prmkit rl grpo` leaves it after its step-0 measurement: settings.json, heldout.jsonl."""
    path.mkdir(parents=True)
    (path / "settings.json").write_text(json.dumps(asdict(config), indent=1))
    problems = select_problems(config.heldout_data or config.data, config.heldout_range)
    row = {"step": 0, "accuracy": 0.25, "greedy_accuracy": 0.5, "steps": 2.0, "answered": 1.0, "samples": 4,
           "tokens": 40, "seconds": 12.5, "right": [1, 0], "greedy_right": [1, 0],
           "heldout_sha256": problems_fingerprint(problems)}
    (path / "heldout.jsonl").write_text(json.dumps(row) + "\n")
    return row


def _curve(config: RLConfig, out: Path) -> HeldoutCurve:
    problems = select_problems(config.heldout_data or config.data, config.heldout_range)
    return HeldoutCurve(config, problems, tokenizer=None, template=None, output=out, log=lambda _: None)


def test_the_step_0_point_is_reused_when_every_setting_that_fixes_it_is_equal(seven_problems, tmp_path):
    first = RLConfig(data=seven_problems, problems_range="0:4", heldout_range="4:6", heldout_samples=2, seed=3)
    row = _measured(tmp_path / "outcome", first)
    # another reward, process and budget: the step-0 point is the same; no policy is needed to take it
    second = replace(first, reward="outcome+pspo_wrs:runs/prm", process="prm:runs/prm", steps=80, lr=1e-5,
                     heldout_before=str(tmp_path / "outcome"))
    curve = _curve(second, tmp_path / "pspo")
    curve.measure(0, model=None)
    assert curve.rows[0] == {**row, "reused_from": str(tmp_path / "outcome")}
    assert json.loads((tmp_path / "pspo" / "heldout.jsonl").read_text()) == curve.rows[0]


@pytest.mark.parametrize(("change", "named"), [
    ({"seed": 4}, "seed: 3 -> 4"), ({"heldout_samples": 4}, "heldout_samples: 2 -> 4"),
    ({"temperature": 0.7}, "temperature: 1.0 -> 0.7"), ({"model": "other-policy"}, "model:"),
    ({"template": "generate_math_0shot"}, "template: None -> 'generate_math_0shot'"),
    ({"max_new_tokens": 96}, "max_new_tokens: 192 -> 96"), ({"chat": False}, "chat: True -> False"),
    ({"top_p": 0.9}, "top_p: 1.0 -> 0.9"), ({"heldout_range": "5:7"}, "held-out problems"),
])
def test_a_step_0_point_of_other_settings_is_refused_naming_the_setting(seven_problems, tmp_path, change, named):
    first = RLConfig(data=seven_problems, problems_range="0:4", heldout_range="4:6", heldout_samples=2, seed=3)
    _measured(tmp_path / "outcome", first)
    curve = _curve(replace(first, heldout_before=str(tmp_path / "outcome"), **change), tmp_path / "other")
    with pytest.raises(ValueError, match=r"--heldout-before .*other settings") as err:
        curve.measure(0, model=None)
    assert named in str(err.value)
    assert not (tmp_path / "other" / "heldout.jsonl").exists()


def test_the_same_path_with_other_problems_in_it_is_refused(seven_problems, tmp_path):
    """The problems' fingerprint, not the file's name, decides: a held-out file rewritten since is another set."""
    data = tmp_path / "held.jsonl"
    lines = Path(seven_problems).read_text().splitlines()
    data.write_text("\n".join(lines) + "\n")
    first = RLConfig(data=str(data), problems_range="0:2", heldout_range="4:6", seed=3)
    _measured(tmp_path / "outcome", first)
    data.write_text("\n".join(lines[:4] + lines[5:] + lines[4:5]) + "\n")  # problems 4 and 5 swapped
    curve = _curve(replace(first, heldout_before=str(tmp_path / "outcome")), tmp_path / "other")
    with pytest.raises(ValueError, match=r"held-out problems .*fingerprint"):
        curve.measure(0, model=None)
    with pytest.raises(ValueError, match="no step-0 held-out measurement"):
        _curve(replace(first, heldout_before=str(tmp_path)), tmp_path / "third").measure(0, model=None)
