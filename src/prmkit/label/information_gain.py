"""Information Gain step scores (MCNIG paper, mcnig_paper.txt sec 3.2.1).

    IG_i = I_i(y*) - I_0(y*),  i = 1..N

Example: I(y*) per prefix = [-9.0, -7.5, -2.0]  ->  IG = [1.5, 7.0].
"""

from __future__ import annotations

__all__ = ["information_gain"]


def information_gain(info_gold: list[float]) -> list[float]:
    """`info_gold[i]` = I_i(y*) for i = 0..N; returns IG_1..IG_N."""
    if not info_gold:
        raise ValueError("need I_0(y*) at least")
    return [v - info_gold[0] for v in info_gold[1:]]
