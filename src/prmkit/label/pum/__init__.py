"""PUM (pum_paper sec 3): a population of students' prefix gain, turned into preference pairs (docs/pum.md)."""

from prmkit.label.pum.pairs import PrefixPoint, candidate_pairs, conflict_rate, global_margin, pair_label
from prmkit.label.pum.pipeline import PumConfig, label_pum
from prmkit.label.pum.prefix_gain import capability_weights, gain, intrinsic_utility, normalisation, prefix_step_counts
from prmkit.label.pum.solve_rates import format_solve_rates, right_prefix, solve_rate_counts, solve_rate_requests
from prmkit.label.pum.students import StudentSpec, parse_student, parse_students

__all__ = ["PrefixPoint", "PumConfig", "StudentSpec", "candidate_pairs", "capability_weights", "conflict_rate",
           "format_solve_rates", "gain", "global_margin", "intrinsic_utility", "label_pum", "normalisation",
           "pair_label", "parse_student", "parse_students", "prefix_step_counts", "right_prefix", "solve_rate_counts",
           "solve_rate_requests"]
