"""Nucleus sampling with one counter-based random stream per row: the key of row b's t-th draw is a hash of (seed_b,
t), computed on the device. The draw is a Gumbel-max over the nucleus with one uniform per (key, token), so the
~1e-6 rounding of another batch shape changes ~1e-6 of draws (an inverse-CDF draw, far more)."""

from collections.abc import Sequence
from typing import Any

__all__ = ["sample_rows", "seed_keys", "step_keys", "token_uniforms"]


def sample_rows(scores: Any, temperature: float, top_p: float, keys: Any,
                candidates: int | Sequence[int] = (64, 1024)) -> Any:
    """One token per row of `scores` (B, V): softmax(scores / T) cut to the smallest set of mass >= top_p (the most
    likely token always kept), drawn with row b's key `keys[b]` (`step_keys`); returns (B,) ids on the scores' device.
    The nucleus is searched among the top-k of a `candidates` ladder first (64, then 1024, then a full sort)."""
    import torch

    probs = (scores.float() / max(temperature, 1e-6)).softmax(-1)  # (B, V)
    keys = keys.to(probs.device)
    picks = torch.empty(probs.shape[0], dtype=torch.long, device=probs.device)  # (B,)
    pending = None  # the rows still to draw (None: all of them)
    for k in (candidates,) if isinstance(candidates, int) else tuple(candidates):
        rows_p = probs if pending is None else probs[pending]
        top, order = rows_p.topk(min(k, probs.shape[-1]), dim=-1)  # (P, k), descending
        inside = top.sum(-1) >= top_p  # rows whose nucleus lies within their k candidates
        drawn = _pick(top, order, top_p, keys if pending is None else keys[pending])  # (P,)
        if pending is None:
            picks = drawn
        else:
            picks[pending] = torch.where(inside, drawn, picks[pending])
        if bool(inside.all()):
            return picks
        pending = (~inside).nonzero().squeeze(1) if pending is None else pending[~inside]
    full, ids = probs[pending].sort(dim=-1, descending=True)  # (S, V)
    picks[pending] = _pick(full, ids, top_p, keys[pending])
    return picks


def _pick(sorted_p: Any, order: Any, top_p: float, keys: Any) -> Any:
    """Draw each row's nucleus from its probabilities sorted descending (R, C), their token ids (R, C) and its key (R,):
    the Gumbel-max with `token_uniforms`."""
    drop = sorted_p.cumsum(-1) - sorted_p >= top_p  # mass before this token already reaches top_p
    drop[:, 0] = False
    gumbel = -(-token_uniforms(keys[:, None], order).log()).log()  # (R, C), float64
    value = (sorted_p.double().log() + gumbel).masked_fill(drop, float("-inf"))
    return order.gather(1, value.argmax(-1, keepdim=True)).squeeze(1)


_MASK32 = 0xFFFFFFFF


def _hash32(x: Any) -> Any:
    """A bijective 32-bit integer mix (xor-shift-multiply, odd multiplier), on int64 tensors holding values in
    [0, 2^32): every product stays below 2^59, so no int64 overflow."""
    for _ in range(2):
        x = (((x >> 16) ^ x) * 0x45D9F3B) & _MASK32
    return (x >> 16) ^ x


def token_uniforms(keys: Any, tokens: Any) -> Any:
    """A float64 in (0, 1) per token id of `tokens` under each key of `keys` (broadcast): a function of (key, token
    id) alone, distinct for distinct tokens under one key."""
    mixed = _hash32(_hash32(tokens & _MASK32) ^ (keys & _MASK32))
    return (mixed.double() + 0.5) / 2.0**32


_GOLDEN = 0x9E3779B9  # the step increment of a row's counter (odd: 2^32 / golden ratio, a Weyl sequence)


def seed_keys(seeds: Sequence[int], device: Any = "cpu") -> Any:
    """Each row's base key (R,) int64 on `device`, from its seed (any int; 64 bits folded to 32 and mixed)."""
    import torch

    folded = [((s % 2**64) ^ ((s % 2**64) >> 32)) & _MASK32 for s in seeds]
    return _hash32(torch.tensor(folded, dtype=torch.int64, device=device))


def step_keys(base: Any, step: int | Any) -> Any:
    """The key of each row's draw of its token number `step` (0 for the first new token): a hash of the row's base key
    plus (step + 1) times an odd constant; a function of the row's seed and step alone."""
    return _hash32((base + (step + 1) * _GOLDEN) & _MASK32)

