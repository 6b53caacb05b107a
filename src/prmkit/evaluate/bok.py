"""Best-of-K selection (MCNIG sec 3.5): a selector (`SELECTORS`) picks one of K candidates; accuracy is averaged over
K-subsets of each pool, then over problems. K samples come in random order, so a tie's success is the mean
correctness of the tied candidates.

Pool (answer, correct, score) = (5, F, .9), (7, T, .2), (7, T, .3), (5, F, .1): K=4: majority ties 5 vs 7 -> 0.5;
weighted takes 5 (.9 + .1 > .2 + .3) -> 0; best (.9) -> 0; oracle -> 1. K=2 (6 pairs): oracle 5/6, the others 0.5."""

import itertools
import math
import random
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from prmkit.data.answers import answer_key
from prmkit.evaluate.stats import bootstrap_ci

__all__ = ["SELECTORS", "Candidate", "accuracies", "bok_curves", "default_ks", "difference_rows",
           "expected_accuracy", "vote_weight"]


@dataclass
class Candidate:
    answer: str | None
    correct: bool
    score: float = 0.0
    kind: str | None = None  # the reward head that scored it (`prmkit score`'s `kind`): its vote is `vote_weight`


def vote_weight(score: float, kind: str | None) -> float:
    """A candidate's vote in weighted voting: a Bradley-Terry head (`kind` bt, PUM sec 3.4) scores an unbounded utility
    r and votes its strength exp(r) (vote_weight(0, "bt") = 1); other heads vote their probability."""
    return math.exp(min(score, 700.0)) if kind == "bt" else score


def _mean_correct(cands: list[Candidate]) -> float:
    """Expected success of taking the earliest of `cands` when their sampling order is random."""
    return sum(c.correct for c in cands) / len(cands)


def _vote(cands: list[Candidate], weight: Callable[[Candidate], float]) -> float:
    groups: dict[str, list[Candidate]] = {}
    for c in cands:
        if c.answer is not None:
            groups.setdefault(answer_key(c.answer), []).append(c)
    if not groups:
        return _mean_correct(cands)
    totals = {key: sum(map(weight, group)) for key, group in groups.items()}
    best = max(totals.values())
    return _mean_correct([c for k, g in groups.items() if totals[k] == best for c in g])


def _best(cands: list[Candidate]) -> float:
    answered = [c for c in cands if c.answer is not None] or cands
    top = max(c.score for c in answered)
    return _mean_correct([c for c in answered if c.score == top])


SELECTORS: dict[str, Callable[[list[Candidate]], float]] = {
    "single": _mean_correct,
    "majority": lambda cands: _vote(cands, lambda c: 1.0),
    "weighted": lambda cands: _vote(cands, lambda c: vote_weight(c.score, c.kind)),
    "best": _best,
    "oracle": lambda cands: float(any(c.correct for c in cands)),
}


def default_ks(pool_size: int) -> list[int]:
    """The K of a best-of-K table when none are given: 1, 2, 4, ... up to `pool_size` (6 -> [1, 2, 4])."""
    return [2**i for i in range(pool_size.bit_length()) if 2**i <= pool_size]


def _subsets(n: int, k: int, max_subsets: int, rng: random.Random) -> list[tuple[int, ...]]:
    if math.comb(n, k) <= max_subsets:
        return list(itertools.combinations(range(n), k))
    return [tuple(sorted(rng.sample(range(n), k))) for _ in range(max_subsets)]


def expected_accuracy(pools: list[list[Candidate]], selector: str, k: int, max_subsets: int = 256,
                      seed: int = 0) -> np.ndarray:
    """Per-problem success of `selector` averaged over K-subsets. Shape (problems,)."""
    rng, select = random.Random(seed), SELECTORS[selector]
    out = []
    for cands in pools:
        subs = _subsets(len(cands), min(k, len(cands)), max_subsets, rng)
        out.append(sum(select([cands[i] for i in s]) for s in subs) / len(subs))
    return np.array(out)


def accuracies(methods: dict[str, tuple[str, list[list[Candidate]]]], ks: list[int], max_subsets: int = 256,
               seed: int = 0) -> dict[tuple[str, int], np.ndarray]:
    """{(method, K): per-problem expected accuracy}, computed once for `bok_curves` and `difference_rows`."""
    return {(name, k): expected_accuracy(pools, selector, k, max_subsets, seed)
            for name, (selector, pools) in methods.items() for k in ks}


def _row(values: np.ndarray, n_boot: int, seed: int, **keys) -> dict:
    """`keys`, then the mean of per-problem `values` with its 95% interval (bootstrap over problems)."""
    lo, hi = bootstrap_ci(values, n_boot, seed)
    return keys | {"mean": float(values.mean()), "lo": lo, "hi": hi, "problems": len(values)}


def bok_curves(methods: dict[str, tuple[str, list[list[Candidate]]]], ks: list[int], max_subsets: int = 256,
               n_boot: int = 1000, seed: int = 0, values: dict[tuple[str, int], np.ndarray] | None = None
               ) -> list[dict]:
    """methods: name -> (selector, pools). Rows {method, k, mean, lo, hi, problems}; `values`: `accuracies` if known."""
    values = values if values is not None else accuracies(methods, ks, max_subsets, seed)
    return [_row(values[name, k], n_boot, seed, method=name, k=k) for name in methods for k in ks]


def difference_rows(methods: dict[str, tuple[str, list[list[Candidate]]]], against: str, ks: list[int],
                    max_subsets: int = 256, n_boot: int = 1000, seed: int = 0,
                    values: dict[tuple[str, int], np.ndarray] | None = None) -> list[dict]:
    """Each method's accuracy minus `against`'s, paired by problem (same K-subsets), with a 95% interval resampling
    problems. Rows {method, against, k, mean, lo, hi, problems}."""
    values = values if values is not None else accuracies(methods, ks, max_subsets, seed)
    return [_row(values[name, k] - values[against, k], n_boot, seed, method=name, against=against, k=k)
            for k in ks for name in methods if name != against]
