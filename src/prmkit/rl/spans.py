"""Which step each completion token belongs to, so that a step's advantage lands on that step's tokens."""

from itertools import accumulate
from typing import Any

from prmkit.domains import STEP

__all__ = ["piece_steps", "token_ends", "token_steps"]


def piece_steps(text: str, sep: str = STEP) -> list[tuple[int, int]]:
    """(end character, step index) of each piece of `text` split on `sep`, the delimiter counted in the piece it
    closes; whitespace-only pieces take the step of their neighbour (previous, else next). Empty text: []."""
    pieces = text.split(sep)
    if not any(piece.strip() for piece in pieces):
        return []
    ends = list(accumulate(len(piece) + len(sep) for piece in pieces))
    ends[-1] -= len(sep)  # the last piece closes with no delimiter
    steps = [max(real - 1, 0) for real in accumulate(bool(piece.strip()) for piece in pieces)]  # real pieces so far
    return list(zip(ends, steps, strict=True))


def token_steps(token_end: list[int], text: str, sep: str = STEP) -> list[int]:
    """The step of each token, split as `prmkit.domains.split_steps` splits: the delimiter belongs to the step it
    closes, a whitespace-only piece joins its neighbour, a token belongs to the piece holding its last character
    (`token_end`: decoded length up to each token); -1 for every token of a text without steps; the last step past
    its end. Text "a [STEP] bc [STEP]", token ends (1, 8, 11, 18) -> steps [0, 0, 1, 1]."""
    pieces = piece_steps(text, sep)
    if not pieces:
        return [-1] * len(token_end)
    out, k = [], 0
    for end in token_end:
        last_char = max(end - 1, 0)
        while k + 1 < len(pieces) and last_char >= pieces[k][0]:
            k += 1
        out.append(pieces[k][1])
    return out


def token_ends(tokenizer: Any, ids: list[int]) -> list[int]:
    """Length of the decoded text after each token (special tokens skipped, as TRL decodes completions)."""
    return [len(tokenizer.decode(ids[: k + 1], skip_special_tokens=True)) for k in range(len(ids))]
