"""Every numeric setting of every verb's configs (a part's fields too) and its range (`field_range`, the one
`check_limits` holds it to): a field that lost its range, or gained one, shows here. A field without a range has
none (None)."""

import dataclasses
import types
from typing import Union, get_args, get_origin

import pytest

from prmkit.cli.verbs import VERBS, config_classes
from prmkit.data.settings import Range, SettingError, check_limits, config_fields, field_range

pytestmark = pytest.mark.usefixtures("prmkit_labelers_only")
SEED = Range(0, 2**32 - 1)
SAMPLES = Range(1, 4096, note="samples per prompt: they are decoded and held together")
LIMIT = Range(1, note="leave it unset for all")
THREADS = Range(0, 4096, note="0: torch's default")
AT_LEAST_0, AT_LEAST_1, FRACTION = Range(0), Range(1), Range(0, 1)
LR, TEMPERATURE, TOP_P = Range(0, 10, open_low=True), Range(0, 100), Range(0, 1, open_low=True)
BATCH, NEW_TOKENS = Range(1, 65536), Range(1, 131072)

EXPECTED = {
    "BeamConfig": {"batch_size": BATCH, "k": SAMPLES, "limit": LIMIT, "max_new_tokens": NEW_TOKENS,
                   "max_steps": AT_LEAST_1, "problems_per_batch": AT_LEAST_1, "seed": SEED, "temperature": TEMPERATURE,
                   "top_p": TOP_P, "width": AT_LEAST_1},
    "BenchConfig": {"batch_size": BATCH, "bootstrap": Range(0, 1_000_000, note="0: no interval"), "k": SAMPLES,
                    "max_new_tokens": NEW_TOKENS, "policy_k": Range(0, 4096, note="0: constructed traces only"),
                    "problems": None, "seed": SEED, "temperature": Range(0, 100, open_low=True)},
    "BenchSetConfig": {"problems": Range(1, 100_000), "seed": SEED},
    "BokConfig": {"bootstrap": Range(1, 1_000_000), "max_subsets": AT_LEAST_1, "seed": SEED},
    "CompareConfig": {"bootstrap": Range(1, 1_000_000)},
    "PayoffTableConfig": {"bootstrap": Range(1, 1_000_000), "seed": SEED},
    "TrainTarget": {},
    "CorruptConfig": {"limit": LIMIT, "seed": SEED},
    "ExportConfig": {},
    "ExportHFConfig": {},
    "GenerateConfig": {"batch_size": BATCH, "k": SAMPLES, "limit": LIMIT, "max_new_tokens": NEW_TOKENS,
                       "max_traces": AT_LEAST_1, "ray_actors": Range(1, 4096), "seed": SEED,
                       "temperature": TEMPERATURE, "top_p": TOP_P},
    "InformationConfig": {"forward_tokens": Range(0, note="0: the device's default"), "max_batch_tokens": AT_LEAST_1,
                          "max_step_tokens": AT_LEAST_1},
    "LabelConfig": {"limit": LIMIT, "ray_actors": Range(1, 4096), "tau": None},
    "PayoffConfig": {"pairs_per_problem": AT_LEAST_1, "seed": SEED, "threads": THREADS,
                     "train_problems": Range(0, note="0: every problem of the bench")},
    "PayoffScoreConfig": {"threads": None},
    "ProcessBenchConfig": {},
    "PumConfig": {"batch_size": BATCH, "k": SAMPLES, "length_tolerance": AT_LEAST_0, "margin_quantile": FRACTION,
                  "max_conflict": FRACTION, "max_new_tokens": NEW_TOKENS, "norm_eps": Range(0, open_low=True),
                  "positions": None, "resolution_scale": AT_LEAST_0, "seed": SEED, "temperature": TEMPERATURE,
                  "top_p": TOP_P},
    "PumLabelConfig": {"batch_size": BATCH, "k": SAMPLES, "max_new_tokens": NEW_TOKENS, "seed": SEED,
                       "temperature": TEMPERATURE, "top_p": TOP_P},
    "RLConfig": {"beta": AT_LEAST_0, "group_size": AT_LEAST_1, "heldout_samples": AT_LEAST_0,
                 "heldout_steps": AT_LEAST_0, "lora_alpha": AT_LEAST_0, "lora_r": AT_LEAST_0, "lr": LR,
                 "max_new_tokens": NEW_TOKENS, "max_segments": AT_LEAST_1, "process_coef": AT_LEAST_0,
                 "prompts_per_step": AT_LEAST_1, "save_steps": AT_LEAST_0, "save_total_limit": AT_LEAST_0, "seed": SEED,
                 "steps": AT_LEAST_1, "temperature": TEMPERATURE, "threads": THREADS, "top_p": TOP_P},
    "RewardModelConfig": {},
    "RolloutConfig": {"batch_size": BATCH, "k": SAMPLES, "limit": LIMIT, "max_new_tokens": NEW_TOKENS,
                      "positions": AT_LEAST_0, "ray_actors": Range(1, 4096), "seed": SEED, "temperature": TEMPERATURE,
                      "top_p": TOP_P},
    "RolloutLabelConfig": {"batch_size": BATCH, "k": SAMPLES, "max_new_tokens": NEW_TOKENS, "seed": SEED,
                           "temperature": TEMPERATURE, "top_p": TOP_P},
    "SFTRunConfig": {"batch_size": BATCH, "bench_seed": None, "epochs": Range(0, 100_000, open_low=True),
                     "holdout": None, "logging_steps": AT_LEAST_1, "lora_alpha": AT_LEAST_0, "lora_r": AT_LEAST_0,
                     "lr": LR, "max_length": AT_LEAST_1, "max_steps": AT_LEAST_0, "micro_batch": AT_LEAST_1,
                     "problems": None, "save_steps": AT_LEAST_0, "save_total_limit": AT_LEAST_0, "seed": SEED,
                     "threads": THREADS, "warmup": FRACTION},
    "ScoreConfig": {"max_batch": AT_LEAST_1, "max_tokens": AT_LEAST_1, "threads": THREADS, "window": AT_LEAST_1},
    "SynthConfig": {"exclude_demo": AT_LEAST_0,
                    "problems": Range(1, 1_000_000, note="one run streams its files, but more would take hours and "
                                                         "tens of GB: write several files with other seeds"),
                    "seed": SEED, "wrong": Range(0, 1_000)},
    "ThresholdConfig": {"tau": None},
    "TrainConfig": {"batch_traces": AT_LEAST_1, "epochs": Range(0, 100_000, open_low=True), "eval_steps": AT_LEAST_0,
                    "freeze_layers": AT_LEAST_0, "grad_clip": AT_LEAST_0, "keep_layers": AT_LEAST_0,
                    "logging_steps": AT_LEAST_1, "lora_alpha": AT_LEAST_0, "lora_dropout": FRACTION,
                    "lora_r": AT_LEAST_0, "lr": LR, "max_length": AT_LEAST_1, "max_steps": AT_LEAST_0,
                    "micro_batch": AT_LEAST_1, "save_steps": AT_LEAST_0, "save_total_limit": AT_LEAST_0, "seed": SEED,
                    "threads": THREADS, "warmup": FRACTION, "weight_decay": AT_LEAST_0},
    "TrainInputs": {"held_out": AT_LEAST_0, "neutral_band": AT_LEAST_0},
    "VerifyConfig": {"show": AT_LEAST_0},
    "ViewConfig": {"limit": LIMIT},
}


def _numeric(tp) -> bool:
    if get_origin(tp) in (Union, types.UnionType, list, tuple):
        return any(_numeric(a) for a in get_args(tp))
    return tp in (int, float)


def test_every_numeric_field_of_every_verb_has_its_range():
    classes = {cls for verb in VERBS.values() for cls in config_classes(verb)}
    found = {cls.__name__: {s.name: field_range(s.field) for s in config_fields(cls) if _numeric(s.hint)}
             for cls in classes}
    for name in sorted(found.keys() | EXPECTED.keys()):
        assert found.get(name) == EXPECTED.get(name), name


def test_a_field_range_is_its_own():
    """A range belongs to the field, not to its name: a new `k` or `seed` elsewhere has none until given one."""

    @dataclasses.dataclass
    class Cfg:
        k: int = 8
        seed: int = dataclasses.field(default=0, metadata={"range": SEED})

        def __post_init__(self) -> None:
            check_limits(self)

    assert Cfg(k=0).k == 0
    with pytest.raises(SettingError, match="--seed -1: must be at least 0 and at most 4294967295"):
        Cfg(seed=-1)
