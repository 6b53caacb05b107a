"""Training reward models on step labels: PRM (MCNIG sec 3.3), ORM (sec 3.4), 3-class PRM (PSPO); and PUM's value
model on preference pairs (`pum_pairs`: pum_paper sec 3.4).

The reward model itself, its heads and its config live in `prmkit.models` (`RewardModel`, `HEADS`,
`RewardModelConfig`); this package holds the training config, the examples, the problem-grouped batches and the
`transformers.Trainer` subclass (imported lazily: transformers' Trainer is slow to import; the examples too, so that
`prmkit.train.config`, which `prmkit.rl` imports, loads no torch).
"""

from importlib import import_module
from typing import Any

from prmkit.train.config import TrainConfig

_LAZY = {"LABEL_SOURCES": "data", "Example": "data", "build_examples": "data", "read_training_set": "data",
         "Encoded": "batches", "ProblemBatchSampler": "batches", "RewardCollator": "batches",
         "encode_examples": "batches", "problem_batches": "batches", "RewardModelTrainer": "trainer",
         "build_trainer": "recipe", "train_reward_model": "recipe", "training_arguments": "arguments",
         "recipe_path": "recipe_files", "PairBatchSampler": "pum_pairs", "PairExample": "pum_pairs",
         "build_pair_trainer": "pum_pairs", "encode_pairs": "pum_pairs", "read_pair_examples": "pum_pairs"}
__all__ = ["TrainConfig", *_LAZY]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(f"prmkit.train.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'prmkit.train' has no attribute {name!r}")
