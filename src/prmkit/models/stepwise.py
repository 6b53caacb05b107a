"""Step-wise tokenisation: the prompt's ids, then each step tokenised on its own followed by the separator's ids.
Never `sep.join(steps)`: BPE merges across the boundary and shifts every step's end position."""

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
        """(ids, the position of each step's separator (its last id)). Example, a toy tokenizer of one id a text:
        StepLayout("Q: {question}\\n", (9,)).encode(..., "2+2?", ["a", "bb"]) -> ([8, 1, 9, 2, 9], [2, 4])."""
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
    """(ids, ends): ids = enc(prefix) + enc(r_1) + enc(sep) + ... + enc(r_N) + enc(sep), ends[i] the length after
    step i (its separator included); ends[0] = len(enc(prefix))."""
    layout = StepLayout("{question}", tuple(encode_text(tokenizer, sep)))
    ids, positions = layout.encode(partial(encode_text, tokenizer), prefix, steps)
    return ids, [len(encode_text(tokenizer, prefix, special=True)), *(p + 1 for p in positions)]
