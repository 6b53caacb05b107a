"""Models: loading base LMs, reward models and their heads, step scorers (`SCORERS`, `load_scorer`) and step-score
aggregations (`AGGREGATIONS`). Torch-backed modules are imported from themselves, so this package stays cheap."""

from prmkit.models.aggregate import AGGREGATIONS, aggregate, geometric_mean
from prmkit.models.loading import DEFAULT_MODEL, ModelNotFound, load_model, resolve_model
from prmkit.models.scorer import SCORERS, BatchStepScorer, StepScorer, load_scorer, score_items, score_traces

__all__ = ["AGGREGATIONS", "DEFAULT_MODEL", "SCORERS", "BatchStepScorer", "ModelNotFound", "StepScorer", "aggregate",
           "geometric_mean", "load_model", "load_scorer", "resolve_model", "score_items", "score_traces"]
