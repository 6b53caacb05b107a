"""Ranking robustness (PUM paper sec 4.2) and the within-problem AUC: how well a scorer orders the candidates of one
problem."""

from prmkit.evaluate.bok import Candidate

__all__ = ["rank_percentiles", "rank_robustness", "within_problem_auc"]


def rank_percentiles(scores: list[float]) -> list[float]:
    """PUM sec 4.2: percentile of candidate i = (#scored below i + 0.5 * #others tied) / (n - 1); 1 top, 0 bottom.
    (.9, .2, .3, .1) -> (1, 1/3, 2/3, 0)."""
    n = len(scores)
    if n < 2:
        return [1.0] * n
    return [(sum(t < s for t in scores) + 0.5 * (sum(t == s for t in scores) - 1)) / (n - 1) for s in scores]


def rank_robustness(pools: list[list[Candidate]]) -> dict[str, float]:
    """PUM sec 4.2: the mean over problems (of at least two candidates) of the lowest percentile of a correct
    candidate (`worst_correct`, higher is better) and the highest of an incorrect one (`best_incorrect`, lower is
    better); scores (.9 F, .2 T, .3 T, .1 F) -> 1/3 and 1. Also `within_problem_auc`."""
    ranked = [list(zip(rank_percentiles([c.score for c in cands]), cands, strict=True)) for cands in pools
              if len(cands) > 1]
    worst = [min(pcts) for r in ranked if (pcts := [p for p, c in r if c.correct])]
    best = [max(pcts) for r in ranked if (pcts := [p for p, c in r if not c.correct])]
    mean = lambda xs: sum(xs) / len(xs) if xs else float("nan")  # noqa: E731
    auc, mixed = within_problem_auc(pools)
    return {"worst_correct": mean(worst), "best_incorrect": mean(best), "problems_with_correct": len(worst),
            "problems_with_incorrect": len(best), "within_problem_auc": auc, "problems_with_both": mixed}


def within_problem_auc(pools: list[list[Candidate]]) -> tuple[float, int]:
    """(mean over problems with a right and a wrong candidate of P(score right > score wrong), ties 1/2; how many such
    problems); nan when none. (.9 F, .2 T, .3 T, .1 F): 2 of 4 pairs -> 0.5."""
    aucs = []
    for cands in pools:
        right = [c.score for c in cands if c.correct]
        wrong = [c.score for c in cands if not c.correct]
        if right and wrong:
            aucs.append(sum((r > w) + 0.5 * (r == w) for r in right for w in wrong) / (len(right) * len(wrong)))
    return (sum(aucs) / len(aucs) if aucs else float("nan")), len(aucs)
