"""Scoring candidates with a reward model and best-of-K evaluation (MCNIG sec 3.5, PUM sec 4.2)."""

from prmkit.evaluate.aggregate import AGGREGATIONS, aggregate
from prmkit.evaluate.bok import SELECTORS, Candidate, bok_curves, expected_accuracy
from prmkit.evaluate.rank import rank_percentiles, rank_robustness
from prmkit.evaluate.report import bok_report, format_table, read_scores
from prmkit.evaluate.score import score_pools
from prmkit.evaluate.view import build_view, render_page, write_view
from prmkit.evaluate.view_model import ViewConfig, load_view

__all__ = ["AGGREGATIONS", "SELECTORS", "Candidate", "ViewConfig", "aggregate", "bok_curves", "bok_report",
           "build_view", "expected_accuracy", "format_table", "load_view", "rank_percentiles", "rank_robustness",
           "read_scores", "render_page", "score_pools", "write_view"]
