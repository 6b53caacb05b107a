"""A safe exact evaluator of GSM8K calculator annotations (`<<48/2=24>>`): numbers, + - * / and brackets, as
`Fraction`s, walked over an allow-list of `ast` nodes."""

import ast
import operator
import re
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from fractions import Fraction

__all__ = ["BINARY_OPS", "NUMBER", "ArithError", "evaluate", "format_number", "matches", "parse_number"]

NUMBER = re.compile(r"\d+(?:\.\d+)?|\.\d+")  # unsigned literals as GSM8K annotations write them
BINARY_OPS: dict[type, Callable[[Fraction, Fraction], Fraction]] = {ast.Add: operator.add, ast.Sub: operator.sub,
                                                                   ast.Mult: operator.mul, ast.Div: operator.truediv}
_MAX = Fraction(10) ** 15  # a guard against absurd values; no GSM8K quantity comes near it


class ArithError(ValueError):
    """An expression outside the safe subset, or one whose value is undefined (division by zero)."""


def parse_number(text: str) -> Fraction:
    try:
        return Fraction(Decimal(text.replace(",", "")))
    except (InvalidOperation, ValueError) as e:
        raise ArithError(f"not a number: {text!r}") from e


def _walk(node: ast.AST) -> Fraction:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return parse_number(repr(node.value))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _walk(node.operand)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and type(node.op) in BINARY_OPS:
        left, right = _walk(node.left), _walk(node.right)
        if isinstance(node.op, ast.Div) and right == 0:
            raise ArithError("division by zero")
        value = BINARY_OPS[type(node.op)](left, right)
        if abs(value) > _MAX:
            raise ArithError("value out of range")
        return value
    raise ArithError(f"unsupported expression element {type(node).__name__}")


def evaluate(expr: str) -> Fraction:
    """The exact value of an arithmetic expression over numbers, + - * / and brackets (never `eval`)."""
    if not re.fullmatch(r"[\d.+\-*/() ]+", expr):
        raise ArithError(f"unsupported characters in {expr!r}")
    try:
        tree = ast.parse(expr.strip(), mode="eval")
    except SyntaxError as e:
        raise ArithError(f"cannot parse {expr!r}") from e
    return _walk(tree.body)


def format_number(value: Fraction) -> str:
    """GSM8K style: integers without decimals, other values rounded to 2 decimals without trailing zeros."""
    if value.denominator == 1:
        return str(value.numerator)
    text = f"{round(float(value), 2):.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def matches(value: Fraction, written: str) -> bool:
    """Whether `written` (e.g. "3.33") is `value` as GSM8K writes it: exact, or rounded to its own decimals."""
    return abs(value - parse_number(written)) <= Fraction(1, 2 * 10 ** len(written.partition(".")[2]))
