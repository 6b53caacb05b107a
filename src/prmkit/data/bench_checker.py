"""The bench's exact step checker: each step right, wrong or undecided against its problem's computation graph
(docs/bench.md, "Traces and their truth")."""

import re
from dataclasses import dataclass
from fractions import Fraction

from prmkit.data.arith import ArithError, evaluate, parse_number
from prmkit.data.bench import path_values
from prmkit.data.records import Problem

__all__ = ["StepVerdict", "arithmetic_error", "check_steps", "computations", "first_wrong"]

_NUM = r"\d[\d,]*(?:\.\d+)?"
_OP = r"[-+*/×x÷]"
_UNIT = r"(?:\s+[A-Za-z]+){0,2}"  # "18 stickers - 9 stickers = 9": words after a number, before its operator
_EQUATION = re.compile(rf"\$?({_NUM}{_UNIT}(?:\s*{_OP}\s*\$?{_NUM}{_UNIT})+)\s*=\s*\$?({_NUM})")
_ANSWER = re.compile(rf"answer is:?\s*\$?\s*(?:\\boxed\{{)?\s*({_NUM})(?!\s*{_OP}\s*{_NUM})", re.I)
_ANSWER_EXPR = re.compile(rf"answer is:?\s*\$?\s*(?:{_NUM}\s*{_OP}\s*)+{_NUM}\s*=\s*\$?\s*({_NUM})", re.I)
_BARE = re.compile(rf"(?<![\w.]){_NUM}(?![\w])")


@dataclass
class StepVerdict:
    """`right`, `wrong` or `undecided` (a stated number off the path, no computation to judge it), and why."""

    verdict: str
    reason: str = ""


def computations(text: str) -> list[tuple[str, str, str]]:
    """(expression, result text, whole match) of every `expr = result` in a step (`×`, `x`, `÷` read as `*`, `/`;
    words after a number dropped): "18 stickers - 9 stickers = 9" -> ("18 - 9", "9", ...)."""
    text = text.replace("×", "*").replace("÷", "/")
    text = re.sub(r"(?<=\d)\s*x\s*(?=\d)", " * ", text)
    return [(" ".join(re.sub(r"[A-Za-z]+", " ", m.group(1).replace("$", "")).split()), m.group(2), m.group(0))
            for m in _EQUATION.finditer(text)]


def arithmetic_error(expr: str, result: str) -> str | None:
    """Why `expr = result` is wrong arithmetic ("3 + 4 is 7, not 8"), or None when it is right."""
    try:
        value = evaluate(expr.replace(",", ""))
    except ArithError:  # a division by zero too
        return f"cannot evaluate {expr}"
    return None if value == parse_number(result) else f"{expr} is {value}, not {result}"


def _judge_computation(expr: str, result: str, values: set[Fraction]) -> str | None:
    """Why the computation is wrong (its arithmetic, or a number off the solution path), or None when it is right."""
    if why := arithmetic_error(expr, result):
        return why
    if off := [x for x in map(parse_number, re.findall(_NUM, expr)) if x not in values]:
        return f"{expr} reads {off[0]}, not a value of the solution"
    if parse_number(result) not in values:
        return f"{expr} = {result} is not a value of the solution"
    return None


def check_steps(problem: Problem, steps: list[str]) -> list[StepVerdict]:
    """A verdict per step: wrong for bad arithmetic, a number off the solution path or a wrong answer line;
    undecided for a number off the path outside any computation; else right."""
    values = path_values(problem)
    answer = parse_number(problem.answer)
    out = []
    for step in steps:
        text = step.replace("×", "*").replace("÷", "/")
        reasons, covered = [], text
        for expr, result, whole in computations(text):
            if why := _judge_computation(expr, result, values):
                reasons.append(why)
            covered = covered.replace(whole, " ")
        if stated := _ANSWER_EXPR.search(text) or _ANSWER.search(text):
            covered = covered.replace(stated.group(0), " ")
            if parse_number(stated.group(1)) != answer:
                reasons.append(f"the answer line states {stated.group(1)}, not {problem.answer}")
        if reasons:
            out.append(StepVerdict("wrong", "; ".join(reasons)))
            continue
        loose = [x for x in _BARE.findall(covered) if parse_number(x) not in values]
        out.append(StepVerdict("undecided", f"states {loose[0]}, not a value of the solution, without a "
                                            "computation") if loose else StepVerdict("right"))
    return out


def first_wrong(verdicts: list[StepVerdict]) -> int:
    """The first step judged wrong or undecided, -1 when none is."""
    return next((i for i, v in enumerate(verdicts) if v.verdict != "right"), -1)
