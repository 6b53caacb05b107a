"""`prmkit rl grpo` end to end on the tiny step policy: rewards, process advantages, logs, curves, resume."""

import json
from pathlib import Path

import pytest

from prmkit.cli.main import main


@pytest.mark.slow
def test_rl_grpo_cli_trains_logs_and_resumes(step_policy_dir, seven_problems, tiny_base, tmp_path):
    from prmkit.models.reward import RewardModel, RewardModelConfig

    prm = tmp_path / "prm"
    RewardModel.from_base(tiny_base, RewardModelConfig(kind="prm")).save_pretrained(prm)
    out = tmp_path / "run"
    common = ["--quiet", "rl", "grpo", "--model", step_policy_dir, "--data", seven_problems,
              "--problems-range", "0:4", "--heldout-range", "4:5", "--heldout-samples", "2", "--group-size", "2",
              "--prompts-per-step", "2", "--max-new-tokens", "12", "--save-steps", "1", "--lora-r", "4",
              "--reward", f"outcome+pspo_wrs:{prm}", "--process", f"prm:{prm}", "--output", str(out),
              "--heldout-steps", "1", "--trainer-args", "gradient_checkpointing=false"]
    assert main([*common, "--steps", "1"]) == 0
    assert (out / "checkpoint-1").is_dir() and (out / "final" / "config.json").is_file()
    first = json.loads((out / "report.json").read_text())
    assert main([*common, "--steps", "2"]) == 2  # checkpoints exist: refuse without --resume
    assert main([*common, "--steps", "2", "--resume"]) == 0
    report = json.loads((out / "report.json").read_text())  # the whole run's seconds: step 1's go on
    step1 = json.loads((out / "metrics.jsonl").read_text().splitlines()[0])["seconds"]
    assert 0 < step1 <= first["train_seconds"] and report["seconds_this_run"] < report["train_seconds"]
    assert report["train_seconds"] == pytest.approx(step1 + report["seconds_this_run"])
    rows = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in rows] == [1, 2]  # the resumed run continued at step 2
    for key in ("reward", "kl", "accuracy", "reasoning_steps", "rewards/outcome/mean", "rewards/pspo_wrs/mean",
                "adv/grpo_abs", "adv/process_abs", "adv/segment_1"):
        assert all(key in r for r in rows), key
    assert all(0.0 <= r["accuracy"] <= 1.0 and r["reasoning_steps"] >= 1 for r in rows)
    held = json.loads((out / "heldout.json").read_text())
    assert held["before"]["samples"] == held["after"]["samples"] == 2
    curve = [json.loads(line) for line in (out / "heldout.jsonl").read_text().splitlines()]
    assert [r["step"] for r in curve] == [0, 1, 2]  # before, each step; the resumed run measured step 1 not again
    for r in curve:
        assert 0 <= r["accuracy"] <= 1 and r["greedy_accuracy"] in (0.0, 1.0) and 0 <= r["answered"] <= 1
        assert r["tokens"] > 0 and r["samples"] == 2
        assert len(r["right"]) == len(r["greedy_right"]) == 1 and r["right"][0] == round(2 * r["accuracy"])
    assert held["after"] == {k: v for k, v in curve[-1].items() if k != "step"}
    assert Path(out / "heldout.png").stat().st_size > 1000
    report = json.loads((out / "report.json").read_text())
    assert report["steps"] == 2 and report["config"]["process"] == f"prm:{prm}"
    assert [r["step"] for r in report["heldout_curve"]] == [0, 1, 2]
    assert Path(out / "curves.png").stat().st_size > 1000


def test_grpo_arguments_on_a_cpu_turn_off_bf16_and_checkpointing(tmp_path):
    import torch

    from prmkit.rl.config import RLConfig
    from prmkit.rl.run import grpo_arguments

    args = grpo_arguments(RLConfig(), tmp_path, [1.0])
    gpu = torch.cuda.is_available()
    assert args.bf16 is gpu and args.gradient_checkpointing is gpu  # TRL's defaults are True for both
    forced = grpo_arguments(RLConfig(trainer_args=["gradient_checkpointing=true"]), tmp_path, [1.0])
    assert forced.gradient_checkpointing is True  # --trainer-args still wins


@pytest.mark.slow
def test_rl_from_python_is_the_cli_run(step_policy_dir, seven_problems, tmp_path):
    """`prmkit.api.rl(...)` with the CLI's settings: the same metrics step by step and the same policy."""
    import re

    import prmkit

    settings = {"model": step_policy_dir, "data": seven_problems, "problems_range": "0:2", "heldout_range": "4:5",
                "heldout_samples": 1, "group_size": 2, "prompts_per_step": 2, "max_new_tokens": 8, "lora_r": 4,
                "steps": 1, "trainer_args": ["gradient_checkpointing=false"]}
    flags = []
    for key, value in settings.items():
        flags += [f"--{key.replace('_', '-')}", *(value if isinstance(value, list) else [str(value)])]
    assert main(["--quiet", "rl", "grpo", *flags, "--output", str(tmp_path / "cli")]) == 0
    prmkit.api.rl(tmp_path / "api", log=lambda _: None, **settings)

    def metrics(run: str) -> list[dict]:
        rows = [json.loads(line) for line in (tmp_path / run / "metrics.jsonl").read_text().splitlines()]
        return [{k: v for k, v in r.items() if not re.search(r"time|second|per_second|step_s", k)} for r in rows]

    assert metrics("cli") == metrics("api") and len(metrics("cli")) == 1
    weights = [(tmp_path / run / "final").glob("*.safetensors") for run in ("cli", "api")]
    assert [p.read_bytes() for p in sorted(weights[0])] == [p.read_bytes() for p in sorted(weights[1])]


def test_held_out_problems_from_another_file_must_not_be_training_problems(step_policy_dir, seven_problems,
                                                                           tmp_path):
    common = ["--quiet", "rl", "grpo", "--model", step_policy_dir, "--data", seven_problems, "--problems-range",
              "0:4", "--heldout-data", seven_problems, "--max-new-tokens", "4", "--steps", "1"]
    assert main([*common, "--heldout-range", "3:5", "--output", str(tmp_path / "a")]) == 2  # problem 3 in both
    assert not (tmp_path / "a" / "heldout.jsonl").exists()


def test_a_run_with_other_settings_into_the_same_output_is_refused(step_policy_dir, seven_problems, tmp_path,
                                                                    capsys):
    """A run that saved no checkpoint (stopped before its first, or saving none) leaves its held-out curve and
    metrics, which the next run into that output keeps (no step measured twice): with other settings that run took
    the first one's step-0 accuracy as its own 'before'. It is refused now; the same run, longer, goes on."""
    out = tmp_path / "run"
    common = ["--quiet", "rl", "grpo", "--model", step_policy_dir, "--data", seven_problems,
              "--problems-range", "0:4", "--heldout-range", "4:5", "--group-size", "2", "--prompts-per-step", "2",
              "--max-new-tokens", "12", "--lora-r", "4", "--output", str(out),
              "--trainer-args", "gradient_checkpointing=false", "save_strategy='no'"]
    assert main([*common, "--heldout-samples", "2", "--steps", "1"]) == 0
    assert not list(out.glob("checkpoint-*")) and (out / "heldout.jsonl").is_file()
    before = (out / "heldout.jsonl").read_text()
    assert main([*common, "--heldout-samples", "3", "--steps", "1"]) == 2
    assert "holds an RL run made with other settings (heldout_samples: 2 -> 3)" in capsys.readouterr().err
    assert (out / "heldout.jsonl").read_text() == before
    assert main([*common, "--heldout-samples", "2", "--steps", "2"]) == 0  # the same run: steps may change
    report = json.loads((out / "report.json").read_text())  # this process's CPU seconds and peak RSS
    assert report["cpu_seconds_this_run"] > 0 and 0.05 < report["peak_rss_gb"] < 64


@pytest.mark.slow
def test_runs_at_one_seed_measure_the_same_step_0_point_which_heldout_before_reuses(step_policy_dir, seven_problems,
                                                                                   tmp_path):
    common = ["--quiet", "rl", "grpo", "--model", step_policy_dir, "--data", seven_problems,
              "--problems-range", "0:4", "--heldout-range", "4:6", "--heldout-samples", "2", "--group-size", "2",
              "--prompts-per-step", "1", "--max-new-tokens", "12", "--lora-r", "4", "--steps", "1", "--seed", "5",
              "--trainer-args", "gradient_checkpointing=false", "save_strategy='no'"]
    assert main([*common, "--output", str(tmp_path / "a")]) == 0
    assert main([*common, "--reward", "2*outcome", "--lr", "1e-3", "--output", str(tmp_path / "b")]) == 0
    assert main([*common, "--reward", "2*outcome", "--heldout-before", str(tmp_path / "a"),
                 "--output", str(tmp_path / "c")]) == 0
    assert main([*common, "--seed", "6", "--heldout-before", str(tmp_path / "a"), "--output", str(tmp_path / "d")]) == 2
    first = {run: json.loads((tmp_path / run / "heldout.jsonl").read_text().splitlines()[0]) for run in "abc"}
    drop = lambda row: {k: v for k, v in row.items() if k not in ("seconds", "reused_from")}  # noqa: E731
    assert drop(first["a"]) == drop(first["b"]) == drop(first["c"])  # another reward measures the same step 0
    assert first["c"] == {**first["a"], "reused_from": str(tmp_path / "a")}
