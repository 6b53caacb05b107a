"""Ranking robustness (PUM paper sec 4.2): where a scorer ranks its worst correct and best incorrect candidate.

Rank percentile of candidate i in a pool of n = (#candidates scored below i + 0.5 * #others tied) / (n - 1),
1 for the top, 0 for the bottom. Per problem, `worst_correct` is the lowest percentile among correct candidates
(higher is better) and `best_incorrect` the highest among incorrect ones (lower is better); each is averaged
over the problems that have such a candidate and at least two candidates.

Worked example, scores (.9 F, .2 T, .3 T, .1 F): percentiles 1, 1/3, 2/3, 0 -> worst correct 1/3, best incorrect 1.
"""

from __future__ import annotations

from prmkit.evaluate.bok import Candidate

__all__ = ["rank_percentiles", "rank_robustness"]


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
    return {"worst_correct": mean(worst), "best_incorrect": mean(best),
            "problems_with_correct": len(worst), "problems_with_incorrect": len(best)}
