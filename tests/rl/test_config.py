"""`RLConfig` declares no run field of its own that `prmkit train` also has: the model, learning rate, LoRA, seed,
threads, checkpoints, resume and trainer arguments are `train.config.TrainRunConfig`'s (GRPO overrides the defaults
that differ), and the decoding settings `generate.config.DecodingConfig`'s."""

from __future__ import annotations

import dataclasses

from prmkit.data.settings import known_fields
from prmkit.generate.config import DecodingConfig
from prmkit.rl.config import RLConfig
from prmkit.train.config import TrainConfig, TrainRunConfig


def _default(cls: type, name: str) -> object:
    f = cls.__dataclass_fields__[name]
    return f.default_factory() if f.default is dataclasses.MISSING else f.default


def _help(cls: type, name: str) -> str:
    return cls.__dataclass_fields__[name].metadata["help"]


def test_the_shared_run_fields_come_from_one_dataclass():
    assert issubclass(TrainConfig, TrainRunConfig) and issubclass(RLConfig, TrainRunConfig)
    assert issubclass(RLConfig, DecodingConfig)
    shared = known_fields([TrainConfig]) & known_fields([RLConfig])
    assert shared == known_fields([TrainRunConfig])
    assert known_fields([TrainRunConfig]) == {"model", "lr", "lora_r", "lora_alpha", "seed", "threads", "save_steps",
                                              "save_total_limit", "resume", "trainer_args"}


def test_each_keeps_its_defaults():
    train = {n: _default(TrainConfig, n) for n in known_fields([TrainRunConfig])}
    rl = {n: _default(RLConfig, n) for n in known_fields([TrainRunConfig])}
    assert train == {"model": "smollm2-135m", "lr": 1e-6, "lora_r": 0, "lora_alpha": 16, "seed": 0, "threads": 0,
                     "save_steps": 0, "save_total_limit": 2, "resume": False, "trainer_args": []}  # MCNIG sec 4.4
    assert rl == train | {"lr": 1.41e-5, "lora_r": 16, "lora_alpha": 32, "save_steps": 10}  # PSPO LoRA, GRPO
    assert "PSPO, LoRA: 1.41e-5" in _help(RLConfig, "lr") and "paper: 1e-6" in _help(TrainConfig, "lr")
    assert _help(RLConfig, "trainer_args").startswith("further GRPOConfig arguments")
    assert _help(TrainConfig, "trainer_args").startswith("further TrainingArguments")


def test_the_bench_rl_recipes_are_rl_configs_that_differ_in_the_reward_or_process_alone():
    from pathlib import Path

    from prmkit.data.settings import build_config, read_config_file
    from prmkit.rl.config import RLConfig

    recipes = Path(__file__).resolve().parents[2] / "src/prmkit/recipes"
    configs = {name: build_config(RLConfig, read_config_file(str(recipes / f"rl_bench_{name}.yaml"), (RLConfig,)), {})
               for name in ("outcome", "pspo", "pspo_ig", "pum")}
    assert configs["outcome"].reward == "outcome" and configs["pspo"].reward.startswith("outcome+pspo_wrs:")
    assert configs["pspo_ig"].reward == "outcome+pspo_wrs:runs/payoff/ig/model"
    assert configs["pum"].reward == "outcome" and configs["pum"].process.startswith("pum:")
    assert configs["outcome"].process is None and configs["pspo"].process is None
    same = {k: v for k, v in vars(configs["outcome"]).items() if k not in ("reward", "process")}
    for other in ("pspo", "pspo_ig", "pum"):  # the same budget and data: only the reward and process differ
        assert same == {k: v for k, v in vars(configs[other]).items() if k not in ("reward", "process")}
    assert configs["outcome"].heldout_data != configs["outcome"].data and configs["outcome"].heldout_steps > 0


def test_the_oracle_rl_recipes_differ_from_the_outcome_baseline_in_the_reward_or_process_alone():
    """recipes/rl_oracle_*.yaml: rl_bench_outcome.yaml's policy, problems and budget on 300 held-out problems (2
    samples and a greedy completion each); each oracle setting is the outcome baseline with the truth scorer in one
    credit assignment."""
    from pathlib import Path

    from prmkit.data.settings import build_config, read_config_file
    from prmkit.rl.config import RLConfig

    recipes = Path(__file__).resolve().parents[2] / "src/prmkit/recipes"
    read = lambda name: build_config(RLConfig, read_config_file(str(recipes / f"{name}.yaml"), (RLConfig,)), {})  # noqa: E731
    outcome, bench = read("rl_oracle_outcome"), read("rl_bench_outcome")
    assert (outcome.heldout_data, outcome.heldout_range, outcome.heldout_samples) == (
        "runs/rl/heldout300.jsonl", "0:300", 2)
    held = ("heldout_data", "heldout_range", "heldout_samples")
    assert {k: v for k, v in vars(outcome).items() if k not in held} == {
        k: v for k, v in vars(bench).items() if k not in held}
    truth = "truth:runs/rl/train.jsonl"
    expected = {"pspo": (f"outcome+pspo_wrs:{truth}", None), "prm": ("outcome", f"prm:{truth}"),
                "min": ("outcome", f"min:{truth}"), "progress": ("outcome", f"progress:{truth}")}
    for name, (reward, process) in expected.items():
        config = read(f"rl_oracle_{name}")
        assert (config.reward, config.process) == (reward, process), name
        assert {k: v for k, v in vars(config).items() if k not in ("reward", "process")} == {
            k: v for k, v in vars(outcome).items() if k not in ("reward", "process")}, name
