"""The per-row nucleus sampler: its top-k shortcut keeps exactly the nucleus a full sort keeps; each row's draw is
a function of its seed, its step and its own logits (no model)."""

from __future__ import annotations

import torch

from prmkit.generate.backends.row_sampling import sample_rows, seed_keys, step_keys


def _nucleus(probs: torch.Tensor, top_p: float) -> set[int]:
    """The reference: sort the whole row, keep tokens until the mass before them reaches top_p."""
    sorted_p, order = probs.sort(descending=True)
    keep = (sorted_p.cumsum(0) - sorted_p) < top_p
    return set(order[keep].tolist())


def _drawn(scores: torch.Tensor, top_p: float, candidates: int) -> set[int]:
    base = seed_keys(range(scores.shape[0]))
    draws = [sample_rows(scores, 1.0, top_p, step_keys(base, step), candidates) for step in range(400)]
    return {t for d in draws for t in d.tolist()}


def test_top_k_shortcut_and_its_fallback_keep_the_nucleus():
    probs = torch.tensor([0.4, 0.3, 0.2, 0.05, 0.03, 0.02])
    scores = probs.log()[None].repeat(2, 1)  # (2, 6)
    assert _nucleus(probs, 0.85) == {0, 1, 2}
    assert _drawn(scores, 0.85, candidates=4) == {0, 1, 2}  # nucleus inside the 4 candidates (mass 0.95)
    assert _drawn(scores, 0.97, candidates=2) == _nucleus(probs, 0.97) == {0, 1, 2, 3, 4}  # past them: full sort


def test_same_seed_and_step_same_tokens_whatever_the_other_rows():
    torch.manual_seed(0)
    scores = torch.randn(6, 50)
    keys = step_keys(seed_keys([11, 12, 13, 14, 15, 16]), 4)
    first = sample_rows(scores, 0.7, 0.95, keys)
    assert first.tolist() == sample_rows(scores, 0.7, 0.95, keys).tolist()
    pick = [4, 1, 3]  # other rows beside them, another order
    assert sample_rows(scores[pick], 0.7, 0.95, step_keys(seed_keys([15, 12, 14]), 4)).tolist() == first[pick].tolist()
    later = [sample_rows(scores, 0.7, 0.95, step_keys(seed_keys([11] * 6), t))[0].item() for t in range(40)]
    assert len(set(later)) > 5  # a row's steps draw anew (one stream per row, counted by step)


def test_tokens_are_drawn_with_their_renormalised_nucleus_probabilities():
    """20,000 draws: each nucleus token's frequency within 0.015 of p / (nucleus mass) (5 standard errors), and no
    token outside the nucleus; the ladder of candidates (2, then 3, then a full sort) does not change that."""
    probs = torch.tensor([0.5, 0.3, 0.15, 0.04, 0.01])
    scores = probs.log()[None].repeat(4000, 1)
    base = seed_keys(range(4000))
    for ladder in ((64, 1024), (2,), (2, 3)):
        draws = torch.cat([sample_rows(scores, 1.0, 0.9, step_keys(base, t), ladder) for t in range(5)])
        freq = torch.bincount(draws, minlength=5).float() / draws.numel()
        expected = torch.tensor([0.5, 0.3, 0.15, 0.0, 0.0]) / 0.95
        assert torch.allclose(freq, expected, atol=0.015), (ladder, freq)


def test_a_rounding_of_the_logits_does_not_change_the_draw():
    """Another batch shape rounds the logits differently (~1e-6): a flat distribution over 49,152 tokens, where an
    inverse-CDF draw over the sorted probabilities kept only 18 of 64 tokens under such a rounding, keeps its
    tokens here (the Gumbel-max over token-keyed uniforms)."""
    torch.manual_seed(0)
    scores = torch.randn(64, 49152) * 0.01
    rounded = scores + torch.randn_like(scores) * 1e-6
    keys = step_keys(seed_keys(range(64)), 0)
    first = sample_rows(scores, 1.0, 0.95, keys)
    again = sample_rows(rounded, 1.0, 0.95, keys)
    assert (first == again).all()
