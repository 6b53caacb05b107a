"""The step delimiter `[STEP]` and the answer formats a domain reads its final answer in (MCNIG paper sec 3.1)."""

import re
from collections.abc import Callable

__all__ = ["STEP", "choice_answer", "fenced_answer", "math_answer", "split_steps"]

STEP = "[STEP]"

_DOLLAR = re.compile(r"\$\$?([^$\n]{1,80}?)\$\$?")
_BOXED = re.compile(r"\\boxed\{((?:[^{}]|\{[^{}]*\})*)\}")
_ANSWER_IS_MATH = re.compile(r"answer is:?\s*\$\$?([^$\n]{1,80}?)\$", re.I)
# small models drop the dollar signs or add a currency sign: "answer is 54", "is $10.33, which", "is 29 + 14 = 43"
_ANSWER_IS = re.compile(r"answer is:?\s*((?:\$?\s*-?[\d,]*\.?\d+\s*[-+*/×x=]\s*)*(?:\$?\s*-?[\d,]*\.?\d+)?)",
                        re.I)
_TRUNCATED = re.compile(r"[-+*/×=]\s*\$?\s*$")  # an expression that stops at an operator: "196 * 2 ="
_NUMBER = re.compile(r"-?[\d,]*\.?\d+")


def fenced_answer(lang: str) -> Callable[[str], str | None]:
    """An extractor of the last non-empty fenced code block whose language is `lang` (a regex) or unnamed."""
    block = re.compile(rf"```(?:{lang})?[ \t]*\n(.*?)```", re.S | re.I)

    def extract(text: str) -> str | None:
        found = [m.strip() for m in block.findall(text) if m.strip()]
        return found[-1] if found else None

    return extract


def _final_value(expr: str) -> str | None:
    """The value an answer expression ends on: "29 + 14 = 43" -> "43"; None when it stops at an operator or "="
    (a generation cut off mid-expression: "196 * 2 = "); anything without "=" is kept as written."""
    expr = expr.strip().rstrip(".").strip()
    if not expr or _TRUNCATED.search(expr):
        return None
    return expr.rsplit("=", 1)[-1].strip() if "=" in expr else expr


def _plain_value(expr: str) -> str | None:
    """The value of a "the answer is x" match: after its last "=", else as written ("3/4", "29 + 14" for the
    validator to evaluate); a trailing word-"x" ("4 xylophones") dropped, "x" between numbers read as "*"."""
    value = _final_value(re.sub(r"\s*[x×]\s*$", "", expr.replace("$", " ").strip()))
    if value is None:
        return None
    value = re.sub(r"(?<=\d),(?=\d)", "", " ".join(value.split()))
    value = re.sub(r"(?<=\d)\s*[x×]\s*(?=[-\d.])", " * ", value)
    return value if _NUMBER.search(value) else None


def math_answer(text: str) -> str | None:
    """The last of, in this order: `\\boxed{x}`; "the answer is $x$"; "the answer is x" (a number or an
    arithmetic expression, a currency sign allowed); any `$x$`. "... = x" gives x; one that stops at an operator (a
    truncated generation) gives None. A `$...$` pair never spans a step or a line (GSM8K's money amounts)."""
    segments = [seg for part in text.split(STEP) for seg in part.split("\n")]
    for find in (_BOXED.findall, _ANSWER_IS_MATH.findall):
        if found := [m.strip() for seg in segments for m in find(seg) if m.strip()]:
            return _final_value(found[-1])
    if plain := [m for m in _ANSWER_IS.findall(text) if m.strip()]:  # after its last "=", commas dropped: 1,000 -> 1000
        return _plain_value(plain[-1])
    found = [m.strip() for seg in segments for m in _DOLLAR.findall(seg) if m.strip()]
    return _final_value(found[-1]) if found else None


# "the answer is B" / "(b)" / "Option 2" / "blue": a lone letter (the option's letter), else the rest of the line
_CHOICE_IS = re.compile(r"answer is:?\s*(?:option\s+)?(?:\(?([A-Za-z])\)?(?=$|[\s.,:;!)])|([^\n]{1,80}))", re.I)


def choice_answer(text: str) -> str | None:
    """A multiple-choice answer: the last "the answer is X" where X is an option's letter ("B", "(b)": returned as
    "B"), number or text, read to the end of its line; an X in `$...$` or `\\boxed{}`, or no such phrase, is read
    as `math_answer` reads it."""
    if found := [m for seg in text.split(STEP) for line in seg.split("\n") for m in _CHOICE_IS.findall(line)]:
        letter, rest = found[-1]
        if letter:
            return letter.upper()
        rest = rest.strip().rstrip(".").strip()
        if rest and "$" not in rest and "\\boxed" not in rest:
            return rest
    return math_answer(text)


def split_steps(text: str) -> list[str]:
    """Steps r_1..r_N: the non-empty pieces between `[STEP]` delimiters."""
    return [s.strip() for s in text.split(STEP) if s.strip()]

