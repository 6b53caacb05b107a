"""Reward models on step labels: PRM (MCNIG sec 3.3), ORM (sec 3.4), 3-class PRM (PSPO); configs and trainer."""

from prmkit.train.config import RewardModelConfig, TrainConfig
from prmkit.train.data import Example, build_examples, read_pools, read_training_set
from prmkit.train.model import PRM
from prmkit.train.recipe import train_reward_model
from prmkit.train.trainer import RewardModelTrainer, encode_examples

__all__ = ["PRM", "Example", "RewardModelConfig", "RewardModelTrainer", "TrainConfig", "build_examples",
           "encode_examples", "read_pools", "read_training_set", "train_reward_model"]
