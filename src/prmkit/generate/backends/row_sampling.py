"""Nucleus sampling with one random generator per batch row (transformers backend, rollouts).

`generate(do_sample=True)` draws every row from one global generator, so a row's sample depends on the rows beside
it. Here each row has its own `torch.Generator`, seeded from its prompt's seed and its sample index: a prefix's
continuations are the same whatever else is in its batch. The logits processor samples the token itself and
returns a one-hot score, so `generate` must run with `do_sample=False` (its argmax then takes the sampled token).

    >>> import torch
    >>> g = [torch.Generator().manual_seed(0)]
    >>> sample_rows(torch.tensor([[0.0, 9.0, 0.0]]), 1.0, 1e-9, g).tolist()  # top-p ~ 0 keeps only the argmax
    [1]
"""

from __future__ import annotations

from typing import Any

__all__ = ["RowSampler", "sample_rows"]


def sample_rows(scores: Any, temperature: float, top_p: float, generators: list[Any], candidates: int = 1024) -> Any:
    """One token per row of `scores` (B, V): softmax(scores / T) cut to the smallest set of mass >= top_p (the
    most likely token is always kept), sampled with row b's generator. Returns (B,) token ids.

    A row's nucleus is searched among its `candidates` most likely tokens (a top-k, not a sort of the vocabulary);
    only rows whose candidates hold less than top_p are sorted in full, so the result is the nucleus either way."""
    import torch

    probs = (scores.float() / max(temperature, 1e-6)).softmax(-1)  # (B, V)
    top, order = probs.topk(min(candidates, probs.shape[-1]), dim=-1)  # (B, C), descending
    picks = torch.empty(probs.shape[0], dtype=torch.long, device=probs.device)  # (B,)
    short = top.sum(-1) < top_p  # (B,) rows whose nucleus reaches past their candidates
    inside, outside = (~short).nonzero().squeeze(1), short.nonzero().squeeze(1)
    if inside.numel():
        picks[inside] = _pick(top[inside], order[inside], top_p, [generators[b] for b in inside.tolist()])
    if outside.numel():
        full, ids = probs[outside].sort(dim=-1, descending=True)  # (S, V)
        picks[outside] = _pick(full, ids, top_p, [generators[b] for b in outside.tolist()])
    return picks


def _pick(sorted_p: Any, order: Any, top_p: float, generators: list[Any]) -> Any:
    """Sample each row's nucleus from its probabilities sorted descending (R, C) and their token ids (R, C)."""
    import torch

    drop = sorted_p.cumsum(-1) - sorted_p >= top_p  # mass before this token already reaches top_p
    drop[:, 0] = False
    sorted_p = sorted_p.masked_fill(drop, 0.0)
    picks = [torch.multinomial(sorted_p[r], 1, generator=g) for r, g in enumerate(generators)]
    return order.gather(1, torch.stack(picks)).squeeze(1)


class RowSampler:
    """A transformers logits processor: samples with `sample_rows` and returns the choice as one-hot scores."""

    def __init__(self, seeds: list[int], temperature: float, top_p: float):
        self.seeds, self.temperature, self.top_p = seeds, temperature, top_p
        self.generators: list[Any] | None = None

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        import torch

        if self.generators is None:
            self.generators = [torch.Generator(device=scores.device).manual_seed(s) for s in self.seeds]
        picks = sample_rows(scores, self.temperature, self.top_p, self.generators)  # (B,)
        out = torch.full_like(scores, float("-inf"))
        return out.scatter_(1, picks[:, None], 0.0)
