"""Scoring candidates with a reward model and best-of-K evaluation (MCNIG sec 3.5, PUM sec 4.2).

Step-score aggregations live in `prmkit.models.aggregate`."""

from prmkit.evaluate.bok import SELECTORS, Candidate, bok_curves, expected_accuracy
from prmkit.evaluate.rank import rank_percentiles, rank_robustness
from prmkit.evaluate.report import bok_report, format_table, read_scores
from prmkit.evaluate.score import ScoreConfig, score_file, score_pools

__all__ = ["SELECTORS", "Candidate", "ScoreConfig", "bok_curves", "bok_report", "expected_accuracy", "format_table",
           "rank_percentiles", "rank_robustness", "read_scores", "score_file", "score_pools"]
