"""PUM (pum_paper.txt sec 3): prefix gain from a population of students, turned into preference pairs of step
prefixes (pairs, not step labels).

A prefix is useful when it raises the solve rate of a population of students that continue it. PUM measures that
gain with student rollouts, normalises it per student, averages it into an intrinsic utility and labels pairs of
prefixes of the same problem (which is more useful, a tie, or too uncertain to say); `prmkit train pum` then fits
a Bradley-Terry value model on the pairs (`prmkit.train.pum_pairs`).

Modules, in pipeline order: `students` (the population and its rollout files, sec 3.1, A.3), `prefix_gain` (cut
positions, solve rates, gains, normalisation, utility: sec 3.1-3.2, 4.5, A.2-A.3), `pairs` (candidates, the adaptive
margin, the conflict filter, labels: sec 3.3, A.2, A.4), `plots` (appendix B, figures 6 and 7), `pipeline`
(`label_pum` and `PumConfig`, the run that ties them together); beside them `solve_rates` (`prmkit pum
--solve-rates`: can the students solve the problems at all) and `labeler` (`prmkit label --method pum`: the
students' mean gain after every step as step labels).
"""

from prmkit.label.pum.pairs import PrefixPoint, candidate_pairs, conflict_rate, global_margin, pair_label
from prmkit.label.pum.pipeline import PumConfig, label_pum
from prmkit.label.pum.prefix_gain import capability_weights, gain, intrinsic_utility, normalisation, prefix_step_counts
from prmkit.label.pum.solve_rates import format_solve_rates, right_prefix, solve_rate_counts, solve_rate_requests
from prmkit.label.pum.students import StudentSpec, parse_student, parse_students

__all__ = [
    "PrefixPoint",
    "PumConfig",
    "StudentSpec",
    "candidate_pairs",
    "capability_weights",
    "conflict_rate",
    "format_solve_rates",
    "gain",
    "global_margin",
    "intrinsic_utility",
    "label_pum",
    "normalisation",
    "pair_label",
    "parse_student",
    "parse_students",
    "prefix_step_counts",
    "right_prefix",
    "solve_rate_counts",
    "solve_rate_requests",
]
