"""Training reward models on step labels: PRM (MCNIG sec 3.3), ORM (sec 3.4), 3-class PRM (PSPO); and PUM's value
model on preference pairs (`pum_pairs`: pum_paper sec 3.4).

The reward model, its heads and its config live in `prmkit.models`; this package holds the training config
(`config`), the examples (`data`), the batches (`batches`) and the `transformers.Trainer` subclass (`trainer`), each
imported from its module (transformers' Trainer is slow to import; `prmkit.train.config` loads no torch).
"""

from prmkit.train.config import TrainConfig

__all__ = ["TrainConfig"]
