"""Training reward models on step labels: PRM (MCNIG sec 3.3), ORM (sec 3.4), 3-class PRM (PSPO).

The reward model itself, its heads and its config live in `prmkit.models` (`RewardModel`, `HEADS`,
`RewardModelConfig`); this package holds the training config, the examples and the trainer.
"""

from prmkit.train.config import TrainConfig
from prmkit.train.data import LABEL_SOURCES, Example, build_examples, read_training_set
from prmkit.train.recipe import train_reward_model
from prmkit.train.trainer import RewardModelTrainer, encode_examples

__all__ = ["LABEL_SOURCES", "Example", "RewardModelTrainer", "TrainConfig", "build_examples", "encode_examples",
           "read_training_set", "train_reward_model"]
