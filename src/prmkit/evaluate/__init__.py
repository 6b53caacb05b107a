"""Scoring with reward models, best-of-K (MCNIG sec 3.5, PUM sec 4.2), ProcessBench first-error identification and
the step viewer."""

from prmkit.evaluate.bok import SELECTORS, Candidate, bok_curves, default_ks, expected_accuracy
from prmkit.evaluate.first_error import (
    FirstErrorResult,
    choose_tau,
    error_correct_f1,
    first_error_label,
    first_error_result,
    first_labeled_wrong,
    first_step_below,
)
from prmkit.evaluate.processbench import SCORE_FORMATS, format_processbench, processbench_report, read_step_scores
from prmkit.evaluate.rank import rank_percentiles, rank_robustness
from prmkit.evaluate.report import bok_report, check_ks, format_table, read_scores
from prmkit.evaluate.run import BokConfig, ProcessBenchConfig, best_of_k, named_files, processbench
from prmkit.evaluate.score import ScoreConfig, score_file, score_pools
from prmkit.evaluate.view import build_view, render_page, write_view
from prmkit.evaluate.view_data import ViewConfig, load_view

__all__ = ["SCORE_FORMATS", "SELECTORS", "BokConfig", "Candidate", "FirstErrorResult", "ProcessBenchConfig",
           "ScoreConfig", "ViewConfig", "best_of_k", "bok_curves", "bok_report", "build_view", "check_ks", "choose_tau",
           "default_ks", "error_correct_f1", "expected_accuracy", "first_error_label", "first_error_result",
           "first_labeled_wrong", "first_step_below", "format_processbench", "format_table", "load_view", "named_files",
           "processbench", "processbench_report", "rank_percentiles", "rank_robustness", "read_scores",
           "read_step_scores", "render_page", "score_file", "score_pools", "write_view"]
