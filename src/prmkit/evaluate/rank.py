"""Ranking robustness (PUM paper sec 4.2): where a scorer ranks its worst correct and best incorrect candidate.

Rank percentile of candidate i in a pool of n = (#candidates scored below i + 0.5 * #others tied) / (n - 1),
1 for the top, 0 for the bottom. Per problem, `worst_correct` is the lowest percentile among correct candidates
(higher is better) and `best_incorrect` the highest among incorrect ones (lower is better); each is averaged
over the problems that have such a candidate and at least two candidates.

Worked example, scores (.9 F, .2 T, .3 T, .1 F): percentiles 1, 1/3, 2/3, 0 -> worst correct 1/3, best incorrect 1.

Within-problem AUC: per problem with a right and a wrong candidate, the share of (right, wrong) pairs the scorer
orders right (ties count half), averaged over those problems. What best-of-K needs: a scorer whose scores separate
problems (easy ones score high) but not the samples of one problem has an overall AUC above 0.5 and this one at 0.5.
In the example: right .2 and .3 against wrong .9 and .1, 2 of 4 pairs -> 0.5.
"""

from __future__ import annotations

from prmkit.evaluate.bok import Candidate

__all__ = ["rank_percentiles", "rank_robustness", "within_problem_auc"]


def rank_percentiles(scores: list[float]) -> list[float]:
    n = len(scores)
    if n < 2:
        return [1.0] * n
    return [(sum(t < s for t in scores) + 0.5 * (sum(t == s for t in scores) - 1)) / (n - 1) for s in scores]


def rank_robustness(pools: list[list[Candidate]]) -> dict[str, float]:
    worst, best = [], []
    for cands in pools:
        if len(cands) < 2:
            continue
        pct = rank_percentiles([c.score for c in cands])
        correct = [p for p, c in zip(pct, cands, strict=True) if c.correct]
        wrong = [p for p, c in zip(pct, cands, strict=True) if not c.correct]
        if correct:
            worst.append(min(correct))
        if wrong:
            best.append(max(wrong))
    mean = lambda xs: sum(xs) / len(xs) if xs else float("nan")  # noqa: E731
    auc, mixed = within_problem_auc(pools)
    return {"worst_correct": mean(worst), "best_incorrect": mean(best),
            "problems_with_correct": len(worst), "problems_with_incorrect": len(best),
            "within_problem_auc": auc, "problems_with_both": mixed}


def within_problem_auc(pools: list[list[Candidate]]) -> tuple[float, int]:
    """(mean over problems with a right and a wrong candidate of P(score right > score wrong), ties 1/2; how many
    such problems). nan when there are none."""
    aucs = []
    for cands in pools:
        right = [c.score for c in cands if c.correct]
        wrong = [c.score for c in cands if not c.correct]
        if right and wrong:
            wins = sum((r > w) + 0.5 * (r == w) for r in right for w in wrong)
            aucs.append(wins / (len(right) * len(wrong)))
    return (sum(aucs) / len(aucs) if aucs else float("nan")), len(aucs)
