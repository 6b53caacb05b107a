"""Models: loading base LMs (the embedded default and local HF directories), reward models with their heads,
the `StepScorer` interface with its registry and loader (`SCORERS`, `load_scorer`) and the step-score
aggregations (`AGGREGATIONS`, PSPO-WRS's among them).

The torch-backed modules (`heads`, `losses`, `reward`, `step_inputs`, `hf_export`) are imported from themselves, so
`prmkit.models.loading` and the aggregations stay cheap to import.
"""

from prmkit.models.aggregate import AGGREGATIONS, aggregate, geometric_mean
from prmkit.models.loading import DEFAULT_MODEL, ModelNotFound, load_model, resolve_model
from prmkit.models.scorer import SCORERS, BatchStepScorer, StepScorer, load_scorer, score_items, score_traces

__all__ = ["AGGREGATIONS", "DEFAULT_MODEL", "SCORERS", "BatchStepScorer", "ModelNotFound", "StepScorer", "aggregate",
           "geometric_mean", "load_model", "load_scorer", "resolve_model", "score_items", "score_traces"]
