"""Q of each step prefix from k rollouts of a prover policy (Math-Shepherd's soft estimate), the value PAV's progress
needs (Setlur et al., arXiv 2410.08146, sec 3): `--process progress:rollouts:PROVER[,k=4,...]`."""

from collections.abc import Sequence
from typing import Any

from prmkit.data.records import Pool, Problem, Trace
from prmkit.data.settings import build_configs
from prmkit.domains import STEP, extract_answer, verify_answers
from prmkit.label.math_shepherd import MathShepherdLabeler
from prmkit.label.rollout_labeling import RolloutLabelConfig
from prmkit.models.scorer import StepScorer

__all__ = ["PROVERS", "RolloutValues"]

METHOD = "math-shepherd"  # the soft estimate: the fraction of rollouts that reach the right answer


class RolloutValues(StepScorer):
    """A `StepScorer` whose score of step t is the fraction of k prover rollouts from the prefix ending at t that the
    validator accepts (the last step: the completion's own verdict). `settings` are `RolloutLabelConfig` fields;
    `problems` give each question's gold answer and domain."""

    def __init__(self, prover: str, problems: Sequence[Problem], k: int = 4, **settings: Any) -> None:
        self.problems = {p.question: p for p in problems}
        config = build_configs([RolloutLabelConfig], {"model": prover, "k": k, **settings})[0]
        self.labeler = MathShepherdLabeler(config, [METHOD])

    def score_steps(self, question: str, step_lists: list[list[str]]) -> list[list[float]]:
        problem = self.problems.get(question)
        if problem is None:
            raise ValueError(f"rollout values need the problem of the question '{question[:80]}', which is not one "
                             "of the run's training problems")
        answers = [extract_answer(problem.domain, f" {STEP} ".join(steps)) for steps in step_lists]
        verdicts = verify_answers([(problem, a) for a in answers])
        traces = [Trace(f"{problem.id}/c{n}", problem.id, steps, a, v.ok, "policy")
                  for n, (steps, a, v) in enumerate(zip(step_lists, answers, verdicts, strict=True))]
        labeled = self.labeler.label(Pool(problem, traces), {METHOD: {t.id for t in traces}})
        scores = {r.trace_id: r.scores for r in labeled.records[METHOD]}
        return [scores[t.id] for t in traces]


# scorer kinds that the RL layer builds from its training problems: kind -> (path, problems, **options) -> scorer
PROVERS = {"rollouts": RolloutValues}
