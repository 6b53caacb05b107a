"""A KV cache kept from one `generate_rendered` call to the next (transformers backend): step-level beam search.

Beam search (`prmkit.search.beam`) asks, at every stage, for continuations of the prefixes the previous stage
generated: prompt + kept steps. Without a cache every stage runs the whole prefix through the model again (on the
ct2 backend, which has none, beam search reads 8x the prompt tokens of best-of-N on the demo set). This cache holds
the keys and values of every row of the last call (its prompt and the tokens it generated); the next call looks up,
for each prompt, the stored row sharing the longest token prefix with it, and runs only the rest.

With left padding all rows of a batch share one cached span of the padded layout (`cache_plan`); keys and values
of a token do not depend on the padding before it (positions come from the attention mask), so a row's stored
slice can sit at any offset.

Reused keys and values were computed one token at a time while decoding, a fresh prefill computes them in one
pass: the two agree to float rounding, so a continuation can differ from the uncached run where two tokens'
probabilities tie to the last bits. The cache is therefore off unless asked for (`BackendOptions.prefix_cache`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["PrefixCache", "cache_plan", "common_prefix"]


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    """Length of the longest common prefix of two token id sequences.

    >>> common_prefix([5, 6, 7, 8], [5, 6, 9])
    2
    """
    return next((k for k, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))


def cache_plan(lengths: Sequence[int], cached: Sequence[int]) -> tuple[int, list[int]]:
    """(C, used): the shared cached span [0, C) of the layout left-padded to L = max t_i, and how many of its c_i
    cached tokens each row uses there. Every row feeds its last token to the decoding loop, so at most t_i - 1 are
    cached; C = L - 1 - U, where U = max_i (t_i - 1 - c_i) is the longest part some row cannot take from the cache,
    and a row with more cached tokens than it can use there runs a few of them again.

    Three prompts of 10, 8 and 6 tokens with 9, 2 and 5 cached: U = max(0, 5, 0) = 5 tokens must run for the
    second row, so C = 10 - 1 - 5 = 4: the first row uses 4 of its 9, the second 2 (its own prefix starts at
    offset 2), the third 0 (it starts at offset 4 = C).

    >>> cache_plan([10, 8, 6], [9, 2, 5])
    (4, [4, 2, 0])
    >>> cache_plan([7, 7], [0, 6])
    (0, [0, 0])
    """
    if len(lengths) != len(cached):
        raise ValueError(f"{len(lengths)} lengths but {len(cached)} cached counts")
    longest = max(lengths)
    runs = max(t - 1 - min(c, t - 1) for t, c in zip(lengths, cached, strict=True))
    span = longest - 1 - runs
    return span, [max(0, span - (longest - t)) for t in lengths]


@dataclass
class _Row:
    ids: list[int]
    layers: list[tuple[Any, Any]]  # per layer: keys and values, (heads, len(ids), head_dim)


class PrefixCache:
    """The rows of the last call: token ids and their keys/values.

    `lookup` finds the row sharing the longest prefix with a prompt; `build` assembles the DynamicCache of a
    left-padded batch from the rows `lookup` chose; `store` slices every generated row of a batch out of the
    decoding's cache (`decode_rows`) into the pending rows, and `commit` (at the end of a call) makes them the rows
    looked up by the next call, dropping the older ones.
    """

    def __init__(self) -> None:
        self.rows: list[_Row] = []
        self.pending: list[_Row] = []
        self.tokens_reused = 0  # prompt tokens taken from the cache instead of run again (a throughput counter)

    def lookup(self, ids: Sequence[int]) -> tuple[int, _Row | None]:
        """(tokens shared, row) of the stored row with the longest common prefix with `ids` (the first of equal ones;
        (0, None) without rows)."""
        return max(((common_prefix(r.ids, ids), r) for r in self.rows), key=lambda hit: hit[0], default=(0, None))

    def build(self, config: Any, rows: Sequence[_Row | None], used: Sequence[int], span: int, like: Any) -> Any:
        """A DynamicCache of `span` positions for a batch: row i's first `used[i]` stored tokens right-aligned
        at [span - used[i], span), zeros (masked padding) before them. `like`: a tensor giving dtype and device."""
        import torch
        from transformers import DynamicCache

        cache = DynamicCache(config=config)
        first = next(r for r, n in zip(rows, used, strict=True) if n)
        for layer, (k0, _) in enumerate(first.layers):
            shape = (len(rows), k0.shape[0], span, k0.shape[-1])
            keys = torch.zeros(shape, dtype=k0.dtype, device=like.device)
            values = torch.zeros(shape, dtype=k0.dtype, device=like.device)
            for i, (row, n) in enumerate(zip(rows, used, strict=True)):
                if n:
                    keys[i, :, span - n:] = row.layers[layer][0][:, :n]
                    values[i, :, span - n:] = row.layers[layer][1][:, :n]
            cache.update(keys, values, layer)
        self.tokens_reused += sum(used)
        return cache

    def store(self, cache: Any, ids: Sequence[Sequence[int]], starts: Sequence[int]) -> None:
        """Keep row r of the decoding's cache: its token ids `ids[r]` (prompt + kept generated tokens), which begin
        at padded offset `starts[r]`. Ids beyond the cache's length (the last generated token is never fed) are
        dropped."""
        length = cache.get_seq_length()
        rows: list[_Row] = []
        for r, (row_ids, start) in enumerate(zip(ids, starts, strict=True)):
            n = min(len(row_ids), length - start)
            layers = [(layer.keys[r, :, start:start + n].clone(), layer.values[r, :, start:start + n].clone())
                      for layer in cache.layers]
            rows.append(_Row(list(row_ids[:n]), layers))
        self.pending += rows

    def commit(self) -> None:
        """The rows stored since the last commit replace the ones lookups use."""
        self.rows, self.pending = self.pending, []
