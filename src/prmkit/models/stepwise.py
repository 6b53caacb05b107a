"""Step-wise tokenisation: each step is tokenised on its own and the separator's ids are appended.

Never `sep.join(steps)` as a string: BPE merges tokens across the boundary and shifts every step's
end position (this cost ProcessBench about 4 F1 in public PRM code).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

__all__ = ["encode_steps", "encode_text"]


def encode_text(tokenizer: Any, text: str, special: bool = False) -> list[int]:
    """Token ids of `text`; `special=True` adds the tokenizer's BOS/prefix tokens (use for the sequence start)."""
    return list(_cached(tokenizer, text, special))


@lru_cache(maxsize=65536)
def _cached(tokenizer: Any, text: str, special: bool) -> tuple[int, ...]:
    return tuple(tokenizer(text, add_special_tokens=special)["input_ids"]) if text else ()


def encode_steps(tokenizer: Any, prefix: str, steps: list[str], sep: str) -> tuple[list[int], list[int]]:
    """ids = enc(prefix) + enc(r_1) + enc(sep) + ... + enc(r_N) + enc(sep).

    Returns (ids, ends) where ends[i] is the length of the prefix after step i; ends[0] = len(enc(prefix)).
    A step's separator belongs to the step, so ends[i] - 1 is the position of step i's last separator token.
    """
    ids = encode_text(tokenizer, prefix, special=True)
    sep_ids = encode_text(tokenizer, sep)
    ends = [len(ids)]
    for step in steps:
        ids += encode_text(tokenizer, step) + sep_ids
        ends.append(len(ids))
    return ids, ends
