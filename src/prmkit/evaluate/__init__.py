"""Scoring candidates with a reward model and best-of-K evaluation (MCNIG sec 3.5, PUM sec 4.2)."""

from prmkit.evaluate.aggregate import AGGREGATIONS, aggregate
from prmkit.evaluate.bok import SELECTORS, Candidate, bok_curves, expected_accuracy
from prmkit.evaluate.rank import rank_percentiles, rank_robustness
from prmkit.evaluate.report import bok_report, format_table, read_scores
from prmkit.evaluate.score import score_pools

__all__ = ["AGGREGATIONS", "SELECTORS", "Candidate", "aggregate", "bok_curves", "bok_report", "expected_accuracy",
           "format_table", "rank_percentiles", "rank_robustness", "read_scores", "score_pools"]
