"""Split a completion into steps on `[STEP]` and extract its final answer (MCNIG paper, sec. 3.1).

Answer formats: math `$...$` (see `_math` for the order of preference and the fallbacks small models need),
code in a fenced ```python block, SQL in a fenced ```sql block. A completion without an answer in its domain's
format gets `answer=None` and is removed by the first filtering stage.

    >>> parse_completion("math", " 2 + 2 = 4. [STEP] The answer is $4$.")
    (['2 + 2 = 4.', 'The answer is $4$.'], '4')
"""

from __future__ import annotations

import re
from collections.abc import Callable

from prmkit.generate.prompts import STEP

__all__ = ["EXTRACTORS", "extract_answer", "parse_completion", "split_steps"]

_DOLLAR = re.compile(r"\$\$?([^$\n]{1,80}?)\$\$?")
_BOXED = re.compile(r"\\boxed\{((?:[^{}]|\{[^{}]*\})*)\}")
_ANSWER_IS_MATH = re.compile(r"answer is:?\s*\$\$?([^$\n]{1,80}?)\$", re.I)
# for small models that drop the dollar signs or write a currency sign: "The answer is 54." / "... is $10.33, which"
_ANSWER_IS = re.compile(r"answer is:?\s*\$?\s*(-?[\d,]*\.?\d+)", re.I)


def _fenced(lang: str) -> Callable[[str], str | None]:
    block = re.compile(rf"```(?:{lang})?[ \t]*\n(.*?)```", re.S | re.I)

    def extract(text: str) -> str | None:
        found = [m.strip() for m in block.findall(text) if m.strip()]
        return found[-1] if found else None

    return extract


def _math(text: str) -> str | None:
    """The last of, in this order: `\\boxed{x}`; "the answer is $x$"; "the answer is x" (a number, a currency sign
    allowed); any `$x$`. A `$...$` pair never spans a step or a line, so the dollar signs of GSM8K money amounts
    ("$12 an hour ... [STEP] ... earns $") are not read as math delimiters."""
    segments = [seg for part in text.split(STEP) for seg in part.split("\n")]
    for find in (_BOXED.findall, _ANSWER_IS_MATH.findall):
        found = [m.strip() for seg in segments for m in find(seg) if m.strip()]
        if found:
            return found[-1]
    plain = _ANSWER_IS.findall(text)
    if plain:
        return plain[-1].replace(",", "")
    found = [m.strip() for seg in segments for m in _DOLLAR.findall(seg) if m.strip()]
    return found[-1] if found else None


EXTRACTORS: dict[str, Callable[[str], str | None]] = {
    "math": _math,
    "choice": _math,
    "python": _fenced("python|py"),
    "sql": _fenced("sql|sqlite"),
}


def extract_answer(domain: str, text: str) -> str | None:
    if domain not in EXTRACTORS:
        raise ValueError(f"no answer extractor for domain '{domain}'; known: {', '.join(EXTRACTORS)}")
    return EXTRACTORS[domain](text)


def split_steps(text: str) -> list[str]:
    """Steps r_1..r_N: the non-empty pieces between `[STEP]` delimiters."""
    return [s.strip() for s in text.split(STEP) if s.strip()]


def parse_completion(domain: str, text: str) -> tuple[list[str], str | None]:
    """(steps, answer) of one completion."""
    return split_steps(text), extract_answer(domain, text)
