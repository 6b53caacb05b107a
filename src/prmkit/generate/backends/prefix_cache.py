"""A KV cache kept from one `generate_rendered` call to the next (transformers backend, beam search): a prompt runs
only what it adds to its longest cached prefix. Off unless asked for: reused keys (decoded one token at a time)
match a fresh prefill only to float rounding, so a near-tie can sample otherwise."""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["PrefixCache", "cache_plan", "common_prefix"]


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    """Length of the longest common prefix of two token id sequences."""
    return next((k for k, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))


def cache_plan(lengths: Sequence[int], cached: Sequence[int]) -> tuple[int, list[int]]:
    """(C, used): the shared cached span [0, C) of the batch left-padded to L = max t_i, and how many of its c_i
    cached tokens each row uses. A row's last token is never cached, so C = L - 1 - U, U = max_i (t_i - 1 - c_i).
    Lengths 10, 8, 6 with 9, 2, 5 cached: U = 5, C = 4, used [4, 2, 0]."""
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
    """The rows of the last call (token ids, keys, values): `lookup` the longest shared prefix, `build` a batch's cache
    from such rows, `store` a call's rows, `commit` them for the next call."""

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
        """Keep row r of the decoding's cache: its ids `ids[r]` from padded offset `starts[r]` (ids beyond the cache's
        length, the never-fed last token, dropped)."""
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
