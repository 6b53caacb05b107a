"""Test-time search guided by a step scorer: beam search (PUM sec 4.3) and best-of-N at about the same budget."""

from prmkit.search.beam import beam_search, is_finished
from prmkit.search.bon import best_of_n
from prmkit.search.config import SCORERS, BeamConfig
from prmkit.search.records import SearchResult, SearchStats
from prmkit.search.run import METHODS, SearchReport, run_search
from prmkit.search.select import choose, keep_best, majority_vote, prefix_scores

__all__ = ["METHODS", "SCORERS", "BeamConfig", "SearchReport", "SearchResult", "SearchStats", "beam_search",
           "best_of_n", "choose", "is_finished", "keep_best", "majority_vote", "prefix_scores", "run_search"]
