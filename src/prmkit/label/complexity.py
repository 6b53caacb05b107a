"""Tokens the labeling methods process per CoT, by the MCNIG paper's complexity derivation (appendix A, with
KV-caching): MCNIG O(N), OmegaPRM O(N log N), Math-Shepherd O(N^2)."""

import math
from collections.abc import Sequence

__all__ = ["information_tokens", "omegaprm_tokens", "shepherd_tokens"]


def information_tokens(prefix_tokens: int, n_steps: int, answer_tokens: Sequence[int]) -> int:
    """IG / MCNIG tokens (MCNIG appendix A, "Our method"): |q| + sum_i |r_i| + (N + 1) * S * T, `prefix_tokens` =
    |q| + sum_i |r_i|, `answer_tokens` the S answers' lengths. Example: 20 + 30, N = 3, answers 2 and 3 -> 70."""
    if prefix_tokens < 0 or n_steps < 0 or any(t < 0 for t in answer_tokens):
        raise ValueError("token counts must be >= 0")
    return prefix_tokens + (n_steps + 1) * sum(answer_tokens)


def _check(n_steps: int, step_tokens: float, rollouts: int) -> None:
    if n_steps < 0 or step_tokens < 0 or rollouts < 0:
        raise ValueError("token counts must be >= 0")


def shepherd_tokens(n_steps: int, step_tokens: float, rollouts: int) -> float:
    """Math-Shepherd tokens (MCNIG appendix A, "MathShepherd"): M * s * N (N - 1) / 2, s = mean tokens per step.
    Example: N = 4, s = 10, M = 8 -> 480."""
    _check(n_steps, step_tokens, rollouts)
    return rollouts * step_tokens * n_steps * (n_steps - 1) / 2


def omegaprm_tokens(n_steps: int, step_tokens: float, rollouts: int) -> float:
    """OmegaPRM tokens (MCNIG appendix A, "OmegaPRM"): M * s * (N / 2) * log2 N (the paper's log N read as base 2).
    Example: N = 4, s = 10, M = 8 -> 320; N = 1 -> 0."""
    _check(n_steps, step_tokens, rollouts)
    return rollouts * step_tokens * n_steps / 2 * math.log2(n_steps) if n_steps > 0 else 0.0
