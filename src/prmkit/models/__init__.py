"""Models: loading base LMs (the embedded default and local HF directories), reward models with their heads,
the `StepScorer` interface with its registry and loader (`SCORERS`, `load_scorer`) and the step-score
aggregations (`AGGREGATIONS`, PSPO-WRS's among them).

The torch-backed names (heads, losses, the reward model) load on first use, so `prmkit.models.loading` and the
aggregations stay cheap to import.
"""

from importlib import import_module
from typing import Any

from prmkit.models.aggregate import AGGREGATIONS, aggregate, geometric_mean
from prmkit.models.loading import DEFAULT_MODEL, ModelNotFound, load_model, resolve_model
from prmkit.models.scorer import SCORERS, BatchStepScorer, StepScorer, load_scorer, score_items, score_traces

_LAZY = {"HEADS": "heads", "Head": "heads", "BradleyTerryHead": "heads", "bradley_terry_loss": "losses",
         "class_targets": "heads", "head_class": "heads", "grouped_cross_entropy": "losses", "soft_cross_entropy":
         "losses", "step_weights": "losses", "PRM": "reward", "RewardModel": "reward", "RewardModelConfig": "reward",
         "length_batches": "step_inputs", "ExportHFConfig": "hf_export", "export_hf": "hf_export"}

__all__ = ["AGGREGATIONS", "DEFAULT_MODEL", "HEADS", "PRM", "SCORERS", "BatchStepScorer", "BradleyTerryHead",
           "ExportHFConfig", "Head", "ModelNotFound", "RewardModel", "RewardModelConfig", "StepScorer", "aggregate",
           "bradley_terry_loss", "class_targets", "export_hf", "geometric_mean", "grouped_cross_entropy",
           "head_class", "length_batches", "load_model", "load_scorer", "resolve_model", "score_items",
           "score_traces", "soft_cross_entropy", "step_weights"]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(f"prmkit.models.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'prmkit.models' has no attribute {name!r}")
