"""Token counts of the labeling methods by the MCNIG paper's complexity derivation (mcnig_paper.txt appendix A).

The paper counts tokens processed by the model (scoring or generation), assuming KV-caching. Labelers report
these counts next to the tokens they really fed (`LabelCost`), so that throughput can be compared with the paper.
In N (steps per CoT) with everything else fixed: MCNIG O(N), OmegaPRM O(N log N), Math-Shepherd O(N^2).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["information_tokens", "omegaprm_tokens", "shepherd_tokens"]


def information_tokens(prefix_tokens: int, n_steps: int, answer_tokens: Sequence[int]) -> int:
    """Tokens of IG / MCNIG for one CoT (appendix A, "Our method"):  |q| + sum_i |r_i| + (N + 1) * S * T.

    prefix_tokens: |q| + sum_i |r_i|, the prompt and all N steps (with their separators) read once.
    answer_tokens: the token length of each of the S scored answers (S * T is their sum); each is scored after
        every step prefix i = 0..N (i = 0 is the question alone).

    Example: a 20-token question and 3 steps of 10 tokens, answers of 2 and 3 tokens:
        20 + 30 + (3 + 1) * (2 + 3) = 70.
    """
    if prefix_tokens < 0 or n_steps < 0 or any(t < 0 for t in answer_tokens):
        raise ValueError("token counts must be >= 0")
    return prefix_tokens + (n_steps + 1) * sum(answer_tokens)


def _check(n_steps: int, step_tokens: float, rollouts: int) -> None:
    if n_steps < 0 or step_tokens < 0 or rollouts < 0:
        raise ValueError("token counts must be >= 0")


def shepherd_tokens(n_steps: int, step_tokens: float, rollouts: int) -> float:
    """Tokens of Math-Shepherd for one CoT (appendix A, "MathShepherd"):  M * s * N (N - 1) / 2.

    After each step i = 1..N, M rollouts each generate the rest of a solution, about (N - i) * s tokens
    (s = mean tokens per step); summed over i: M * s * sum_i (N - i) = M * s * N(N - 1)/2.

    Example: N = 4 steps of s = 10 tokens, M = 8 rollouts: 8 * 10 * 4 * 3 / 2 = 480.
    """
    _check(n_steps, step_tokens, rollouts)
    return rollouts * step_tokens * n_steps * (n_steps - 1) / 2


def omegaprm_tokens(n_steps: int, step_tokens: float, rollouts: int) -> float:
    """Tokens of OmegaPRM for one CoT (appendix A, "OmegaPRM"):  M * s * (N / 2) * log2 N.

    A binary search for the first error queries about log2 N prefixes; each query generates M rollouts of
    N/2 steps on average (first error uniform over the N steps), s tokens per step. (The paper writes log N
    and, in the text, ceil(log2 N) queries; the formula is taken as written, with log base 2.)

    Example: N = 4, s = 10, M = 8: 8 * 10 * 2 * 2 = 320; N = 1 gives 0 (nothing to search).
    """
    _check(n_steps, step_tokens, rollouts)
    return rollouts * step_tokens * n_steps / 2 * math.log2(n_steps) if n_steps > 0 else 0.0
