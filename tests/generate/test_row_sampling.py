"""The per-row nucleus sampler: its top-k shortcut keeps exactly the nucleus a full sort keeps (no model)."""

from __future__ import annotations

import torch

from prmkit.generate.backends.row_sampling import sample_rows


def _nucleus(probs: torch.Tensor, top_p: float) -> set[int]:
    """The reference: sort the whole row, keep tokens until the mass before them reaches top_p."""
    sorted_p, order = probs.sort(descending=True)
    keep = (sorted_p.cumsum(0) - sorted_p) < top_p
    return set(order[keep].tolist())


def _drawn(scores: torch.Tensor, top_p: float, candidates: int) -> set[int]:
    gens = [torch.Generator().manual_seed(s) for s in range(scores.shape[0])]
    return {t for _ in range(400) for t in sample_rows(scores, 1.0, top_p, gens, candidates).tolist()}


def test_top_k_shortcut_and_its_fallback_keep_the_nucleus():
    probs = torch.tensor([0.4, 0.3, 0.2, 0.05, 0.03, 0.02])
    scores = probs.log()[None].repeat(2, 1)  # (2, 6)
    assert _nucleus(probs, 0.85) == {0, 1, 2}
    assert _drawn(scores, 0.85, candidates=4) == {0, 1, 2}  # nucleus inside the 4 candidates (mass 0.95)
    assert _drawn(scores, 0.97, candidates=2) == _nucleus(probs, 0.97) == {0, 1, 2, 3, 4}  # past them: full sort


def test_same_generators_same_tokens():
    scores = torch.randn(3, 50)
    first = sample_rows(scores, 0.7, 0.95, [torch.Generator().manual_seed(s) for s in range(3)])
    again = sample_rows(scores, 0.7, 0.95, [torch.Generator().manual_seed(s) for s in range(3)])
    assert first.tolist() == again.tolist()


def test_tokens_are_drawn_with_their_renormalised_nucleus_probabilities():
    """20,000 draws: each nucleus token's frequency within 0.015 of p / (nucleus mass) (5 standard errors), and no
    token outside the nucleus; the ladder of candidates (2, then 3, then a full sort) does not change that."""
    probs = torch.tensor([0.5, 0.3, 0.15, 0.04, 0.01])
    scores = probs.log()[None].repeat(4000, 1)
    gens = [torch.Generator().manual_seed(s) for s in range(4000)]
    for ladder in ((64, 1024), (2,), (2, 3)):
        draws = torch.cat([sample_rows(scores, 1.0, 0.9, gens, ladder) for _ in range(5)])
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
    first = sample_rows(scores, 1.0, 0.95, [torch.Generator().manual_seed(s) for s in range(64)])
    again = sample_rows(rounded, 1.0, 0.95, [torch.Generator().manual_seed(s) for s in range(64)])
    assert (first == again).all()
