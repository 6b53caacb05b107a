"""Training reward models on step labels (PRM: MCNIG sec 3.3, ORM: sec 3.4, 3-class PRM: PSPO) and PUM's value
model on preference pairs (pum_paper sec 3.4); modules are imported from themselves (the Trainer is slow to import)."""

from prmkit.train.config import TrainConfig

__all__ = ["TrainConfig"]
