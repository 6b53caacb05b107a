"""Nucleus sampling with one counter-based random stream per batch row (transformers backend, rollouts).

`generate(do_sample=True)` draws every row from one global generator, so a row's sample depends on the rows beside
it. Here each row draws from its own stream, keyed by its seed (its prompt's seed and its sample index,
`base.row_seed`) and the index of the token it draws: the key of row b's t-th token is a hash of (seed_b, t)
(`step_keys`), computed on the logits' device with integer tensor ops, so a draw needs no generator object, no
per-row host call and no transfer to or from the host. A prefix's continuations are the same whatever else is in
its batch, and on a CPU and a GPU alike (up to the rounding of the logits, below).

A batch changes the float rounding of the logits (another batch shape, other padding: ~1e-6), so the draw must
not hang on the last bits of a probability. An inverse-CDF draw does: with a flat distribution (tens of thousands
of tokens of probability ~2e-5) a rounding moves the CDF's boundaries or swaps two near-equal tokens in the sort,
and another token comes out. Here each step gives every token a uniform number that depends only on (the row's
key, token id), then takes the Gumbel-max, argmax of log p + Gumbel(u), over the nucleus: an exact draw from the
renormalised nucleus, which changes under rounding only when its two best values lie within the rounding of each
other (their gap is Exp(1)-distributed, so ~1e-6 of draws).

    >>> import torch
    >>> keys = step_keys(seed_keys([0]), 0)
    >>> sample_rows(torch.tensor([[0.0, 9.0, 0.0]]), 1.0, 1e-9, keys).tolist()  # top-p ~ 0 keeps only the argmax
    [1]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["sample_rows", "seed_keys", "step_keys", "token_uniforms"]


def sample_rows(scores: Any, temperature: float, top_p: float, keys: Any,
                candidates: int | Sequence[int] = (64, 1024)) -> Any:
    """One token per row of `scores` (B, V): softmax(scores / T) cut to the smallest set of mass >= top_p (the
    most likely token is always kept), drawn with row b's key `keys[b]` (int64, on any device; `step_keys`).
    Returns (B,) token ids on the device of `scores`.

    A row's nucleus is searched among its few most likely tokens first (a top-k, not a sort of the vocabulary:
    `candidates` is a ladder of k, e.g. 64 then 1024); only rows whose candidates hold less than top_p go on to
    the next k, and the last of them is sorted in full, so the result is the nucleus either way. The ladder costs
    one scalar read of the device per level it checks (whether every row is done), not one per row."""
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
    """Sample each row's nucleus from its probabilities sorted descending (R, C), their token ids (R, C) and its
    key (R,): a uniform number per token from (key, token id) (`token_uniforms`), and the Gumbel-max over the
    nucleus (module doc)."""
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
    """A number in (0, 1) for each token id of `tokens` (int64, any shape) under each key of `keys` (broadcast):
    a function of (key, token id) alone, distinct for distinct tokens under one key, as float64.

    >>> import torch
    >>> u = token_uniforms(torch.tensor([[7]]), torch.tensor([[3, 9]]))
    >>> alone = token_uniforms(torch.tensor([[7]]), torch.tensor([[9]]))
    >>> bool(((u > 0) & (u < 1)).all()), alone.item() == u[0, 1].item()
    (True, True)
    """
    mixed = _hash32(_hash32(tokens & _MASK32) ^ (keys & _MASK32))
    return (mixed.double() + 0.5) / 2.0**32


_GOLDEN = 0x9E3779B9  # the step increment of a row's counter (odd: 2^32 / golden ratio, a Weyl sequence)


def seed_keys(seeds: Sequence[int], device: Any = "cpu") -> Any:
    """Each row's base key (R,) int64 on `device`, from its seed (any int; 64 bits folded to 32 and mixed)."""
    import torch

    folded = [((s % 2**64) ^ ((s % 2**64) >> 32)) & _MASK32 for s in seeds]
    return _hash32(torch.tensor(folded, dtype=torch.int64, device=device))


def step_keys(base: Any, step: int | Any) -> Any:
    """The key of each row's draw of its token number `step` (0 for the first new token): a hash of the row's
    base key plus step + 1 times an odd constant, on the device of `base`.

    >>> keys = step_keys(seed_keys([5, 6]), 3)
    >>> keys[1].item() == step_keys(seed_keys([6]), 3)[0].item()  # a row's key: its seed and step alone
    True
    """
    return _hash32((base + (step + 1) * _GOLDEN) & _MASK32)

