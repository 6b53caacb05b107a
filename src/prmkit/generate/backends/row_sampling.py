"""Nucleus sampling with one random generator per batch row (transformers backend, rollouts).

`generate(do_sample=True)` draws every row from one global generator, so a row's sample depends on the rows beside
it. Here each row has its own `torch.Generator`, seeded from its prompt's seed and its sample index: a prefix's
continuations are the same whatever else is in its batch. The logits processor samples the token itself and
returns a one-hot score, so `generate` must run with `do_sample=False` (its argmax then takes the sampled token).

A batch changes the float rounding of the logits (another batch shape, other padding: ~1e-6), so the draw must
not hang on the last bits of a probability. An inverse-CDF draw does: with a flat distribution (tens of thousands
of tokens of probability ~2e-5) a rounding moves the CDF's boundaries or swaps two near-equal tokens in the sort,
and another token comes out. Here each step draws one key per row and gives every token a uniform number that
depends only on (key, token id), then takes the Gumbel-max, argmax of log p + Gumbel(u), over the nucleus: an
exact draw from the renormalised nucleus, which changes under rounding only when its two best values lie within
the rounding of each other (their gap is Exp(1)-distributed, so ~1e-6 of draws).

    >>> import torch
    >>> g = [torch.Generator().manual_seed(0)]
    >>> sample_rows(torch.tensor([[0.0, 9.0, 0.0]]), 1.0, 1e-9, g).tolist()  # top-p ~ 0 keeps only the argmax
    [1]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["RowSampler", "sample_rows", "token_uniforms"]


def sample_rows(scores: Any, temperature: float, top_p: float, generators: list[Any],
                candidates: int | Sequence[int] = (64, 1024)) -> Any:
    """One token per row of `scores` (B, V): softmax(scores / T) cut to the smallest set of mass >= top_p (the
    most likely token is always kept), sampled with row b's generator. Returns (B,) token ids.

    A row's nucleus is searched among its few most likely tokens first (a top-k, not a sort of the vocabulary:
    `candidates` is a ladder of k, e.g. 64 then 1024); only rows whose candidates hold less than top_p go on to
    the next k, and the last of them is sorted in full, so the result is the nucleus either way."""
    import torch

    probs = (scores.float() / max(temperature, 1e-6)).softmax(-1)  # (B, V)
    picks = torch.empty(probs.shape[0], dtype=torch.long, device=probs.device)  # (B,)
    pending = torch.arange(probs.shape[0], device=probs.device)
    for k in (candidates,) if isinstance(candidates, int) else tuple(candidates):
        if not pending.numel():
            return picks
        top, order = probs[pending].topk(min(k, probs.shape[-1]), dim=-1)  # (P, k), descending
        inside = top.sum(-1) >= top_p  # rows whose nucleus lies within their k candidates
        rows = pending[inside]
        if rows.numel():
            picks[rows] = _pick(top[inside], order[inside], top_p, [generators[b] for b in rows.tolist()])
        pending = pending[~inside]
    if pending.numel():
        full, ids = probs[pending].sort(dim=-1, descending=True)  # (S, V)
        picks[pending] = _pick(full, ids, top_p, [generators[b] for b in pending.tolist()])
    return picks


def _pick(sorted_p: Any, order: Any, top_p: float, generators: list[Any]) -> Any:
    """Sample each row's nucleus from its probabilities sorted descending (R, C) and their token ids (R, C): one
    key from the row's generator, a uniform number per token from (key, token id) (`token_uniforms`), and the
    Gumbel-max over the nucleus (module doc)."""
    import torch

    drop = sorted_p.cumsum(-1) - sorted_p >= top_p  # mass before this token already reaches top_p
    drop[:, 0] = False
    keys = torch.stack([torch.randint(0, 2**32, (), generator=g, dtype=torch.int64, device=g.device)
                        for g in generators]).to(order.device)  # (R,): from each row's generator, on its device
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


class RowSampler:
    """A transformers logits processor: samples with `sample_rows` and returns the choice as one-hot scores."""

    def __init__(self, seeds: list[int], temperature: float, top_p: float):
        self.seeds, self.temperature, self.top_p = seeds, temperature, top_p
        self.generators: list[Any] | None = None

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        import torch

        if self.generators is None:
            self.generators = [torch.Generator().manual_seed(s) for s in self.seeds]  # CPU: the same draws on a GPU
        picks = sample_rows(scores, self.temperature, self.top_p, self.generators)  # (B,)
        out = torch.full_like(scores, float("-inf"))
        return out.scatter_(1, picks[:, None], 0.0)
