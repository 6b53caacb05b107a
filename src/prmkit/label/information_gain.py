"""Information Gain step scores (MCNIG paper sec 3.2.1)."""

__all__ = ["information_gain"]


def information_gain(info_gold: list[float]) -> list[float]:
    """IG_i = I_i(y*) - I_0(y*), i = 1..N, from `info_gold[i]` = I_i(y*), i = 0..N (MCNIG paper sec 3.2.1).
    Example: [-9.0, -7.5, -2.0] -> [1.5, 7.0]."""
    if not info_gold:
        raise ValueError("need I_0(y*) at least")
    return [v - info_gold[0] for v in info_gold[1:]]
