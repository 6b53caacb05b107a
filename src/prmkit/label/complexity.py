"""Token counts of the labeling methods by the MCNIG paper's complexity derivation (mcnig_paper.txt appendix A).

The paper counts tokens processed by the model (scoring or generation), assuming KV-caching. Labelers report
these counts next to the tokens they really fed (`LabelCost`), so that throughput can be compared with the paper.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["information_tokens"]


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
