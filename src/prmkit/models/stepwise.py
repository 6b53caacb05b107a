"""Step-wise tokenisation: a trace's ids are the prompt's (the question in a format string, or in the tokenizer's
chat template), then each step tokenised on its own followed by the separator's ids; the score of step i is read at
the last id of its separator.

Never `sep.join(steps)` as a string: BPE merges tokens across the boundary and shifts every step's end position
(this cost ProcessBench about 4 F1 in public PRM code). For Qwen2.5-Math-PRM, whose separator `<extra_0>` is a
special token, these are exactly the ids of its model card's joined string.

    >>> layout = StepLayout("Q: {question}\\n", (9,))
    >>> layout.encode(lambda text, special: [len(text)], "2+2?", ["a", "bb"])   # a toy tokenizer: one id a text
    ([8, 1, 9, 2, 9], [2, 4])
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import Any

__all__ = ["Encoder", "StepLayout", "encode_steps", "encode_text"]

Encoder = Callable[[str, bool], list[int]]  # (text, add the tokenizer's special tokens) -> ids


@dataclass(frozen=True)
class StepLayout:
    """prompt: a format string with `{question}`; sep_ids: appended after every step; special: the prompt gets the
    tokenizer's special tokens (BOS; False for a rendered chat template, which holds its own)."""

    prompt: str
    sep_ids: tuple[int, ...]
    special: bool = True

    def encode(self, encode: Encoder, question: str, steps: list[str]) -> tuple[list[int], list[int]]:
        """(ids, the position of each step's separator (its last id))."""
        ids = list(encode(self.prompt.format(question=question), self.special))
        positions = []
        for step in steps:
            ids += [*encode(step, False), *self.sep_ids]
            positions.append(len(ids) - 1)
        return ids, positions


def encode_text(tokenizer: Any, text: str, special: bool = False) -> list[int]:
    """Token ids of `text`; `special=True` adds the tokenizer's BOS/prefix tokens (use for the sequence start)."""
    return list(_cached(tokenizer, text, special))


@lru_cache(maxsize=65536)
def _cached(tokenizer: Any, text: str, special: bool) -> tuple[int, ...]:
    return tuple(tokenizer(text, add_special_tokens=special)["input_ids"]) if text else ()


def encode_steps(tokenizer: Any, prefix: str, steps: list[str], sep: str) -> tuple[list[int], list[int]]:
    """ids = enc(prefix) + enc(r_1) + enc(sep) + ... + enc(r_N) + enc(sep): a `StepLayout` whose whole prompt is
    the text `prefix`.

    Returns (ids, ends) where ends[i] is the length of the prefix after step i; ends[0] = len(enc(prefix)).
    A step's separator belongs to the step, so ends[i] - 1 is the position of step i's last separator token.
    """
    layout = StepLayout("{question}", tuple(encode_text(tokenizer, sep)))
    ids, positions = layout.encode(partial(encode_text, tokenizer), prefix, steps)
    return ids, [len(encode_text(tokenizer, prefix, special=True)), *(p + 1 for p in positions)]
