"""The exact step checker of the step-label bench: each step of a trace judged against its problem's computation
graph (`prmkit.data.bench`), so the first error of any trace, the policy's own samples included, is known.

A step is **right** when every computation written in it (`a op b = c`, chains such as `a + b - c = d`,
`×`/`x`/`÷` read as `*`/`/`) is right arithmetic on values of the solution path and gives a value of the path,
and an answer line ("The answer is N") states the problem's answer. The values of the path
(`prmkit.data.bench.path_values`) are the numbers the question states, the results of the graph's nodes, and the
partial results of any reordering of a run of additions and subtractions (or of multiplications) on the running
count: `17 + 15 - 13` may be solved as `17 - 13 = 4`, then `4 + 15 = 19`. A step is **wrong** when a
computation in it is wrong arithmetic, reads a number that is not on the path, or gives one that is not; or when
its answer line states another number.

The checker **cannot decide** a step that states a number outside any computation which is not on the path
("Olga has 20 stamps." when no path value is 20): the number may be a wrong count or something harmless (an
enumeration, a unit, a restated misreading). Such steps are counted as `undecided` and taken as wrong (a number
the solution never holds is most often a wrong count; docs/results.md has the hand-read sample). Steps without
numbers are right.

    >>> from prmkit.data.bench import bench_problems
    >>> p = bench_problems(1, seed=0, levels=(2,))[0]
    >>> p.meta["graph"]
    [['-', 15, 6, 9], ['+', 9, 12, 21]]
    >>> [v.verdict for v in check_steps(p, ["15 - 6 = 9 apples.", "9 + 12 = 20.", "The answer is $21$."])]
    ['right', 'wrong', 'right']
"""

from __future__ import annotations

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
    """(expression, result text, whole match) of every `expr = result` in a step (`×`, `x` between digits and `÷`
    read as `*`, `*` and `/`; words after a number dropped from the expression).

    >>> computations("18 stickers - 9 stickers = 9. Then 9 × 2 = 18.")
    [('18 - 9', '9', '18 stickers - 9 stickers = 9'), ('9 * 2', '18', '9 * 2 = 18')]
    """
    text = text.replace("×", "*").replace("÷", "/")
    text = re.sub(r"(?<=\d)\s*x\s*(?=\d)", " * ", text)
    return [(" ".join(re.sub(r"[A-Za-z]+", " ", m.group(1).replace("$", "")).split()), m.group(2), m.group(0))
            for m in _EQUATION.finditer(text)]


def arithmetic_error(expr: str, result: str) -> str | None:
    """Why `expr = result` (one of `computations`) is wrong arithmetic, or None when it is right; the problem is not
    read (`"3 + 4", "8"` -> "3 + 4 is 7, not 8")."""
    try:
        value = evaluate(expr.replace(",", ""))
    except ArithError:  # a division by zero too
        return f"cannot evaluate {expr}"
    return None if value == parse_number(result) else f"{expr} is {value}, not {result}"


def _judge_computation(expr: str, result: str, values: set[Fraction]) -> str | None:
    """Why the computation is wrong (its arithmetic, or a number off the solution path), or None when it is right."""
    if why := arithmetic_error(expr, result):
        return why
    operands = [parse_number(x) for x in re.findall(_NUM, expr)]
    stated = parse_number(result)
    if off := [x for x in operands if x not in values]:
        return f"{expr} reads {off[0]}, not a value of the solution"
    if stated not in values:
        return f"{expr} = {result} is not a value of the solution"
    return None


def check_steps(problem: Problem, steps: list[str]) -> list[StepVerdict]:
    """A verdict per step (module doc)."""
    values = path_values(problem)
    answer = parse_number(problem.answer)
    out = []
    for step in steps:
        text = step.replace("×", "*").replace("÷", "/")
        reasons = []
        covered = text
        for expr, result, whole in computations(text):
            if why := _judge_computation(expr, result, values):
                reasons.append(why)
            covered = covered.replace(whole, " ")
        stated = _ANSWER_EXPR.search(text) or _ANSWER.search(text)
        if stated and parse_number(stated.group(1)) != answer:
            reasons.append(f"the answer line states {stated.group(1)}, not {problem.answer}")
        if stated:
            covered = covered.replace(stated.group(0), " ")
        if reasons:
            out.append(StepVerdict("wrong", "; ".join(reasons)))
            continue
        loose = [x for x in _BARE.findall(covered) if parse_number(x) not in values]
        out.append(StepVerdict("undecided", f"states {loose[0]}, not a value of the solution, without a "
                                            "computation") if loose else StepVerdict("right"))
    return out


def first_wrong(verdicts: list[StepVerdict]) -> int:
    """The first step judged wrong or undecided (a number off the solution path is a claim the solution does not
    make: module doc), -1 when none is."""
    return next((i for i, v in enumerate(verdicts) if v.verdict != "right"), -1)
