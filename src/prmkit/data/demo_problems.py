"""The built-in demo set: seeded arithmetic word problems of one to three operations (`demo/templates.json`),
sized so that the embedded SmolLM2-135M solves some but not all."""

import json
import operator
import random
from collections.abc import Iterator
from functools import cache
from importlib import resources

from prmkit.data.arith import evaluate
from prmkit.data.records import Problem

__all__ = ["APPLY", "demo_problems", "iter_demo_problems"]

# an operation of the arithmetic data sets (demo, synth, bench) on whole numbers; "/" keeps the quotient
APPLY = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.floordiv}


@cache
def _spec() -> dict:
    return json.loads(resources.files("prmkit.data").joinpath("demo/templates.json").read_text(encoding="utf-8"))


def _filled(expr: str, values: dict[str, int]) -> str:
    """A template expression with its names replaced by their values: "a * b + c" -> "4 * 6 + 3"."""
    return " ".join(str(values.get(t, t)) for t in expr.split())


def demo_problems(n: int = 50, seed: int = 0) -> list[Problem]:
    """`n` problems, the same for the same (n, seed); ids `demo-<seed>-<k>`."""
    return list(iter_demo_problems(n, seed))


def iter_demo_problems(n: int = 50, seed: int = 0) -> Iterator[Problem]:
    """`demo_problems(n, seed)` one at a time (memory does not grow with `n`)."""
    spec, rng = _spec(), random.Random(seed)
    for k in range(n):
        tpl = spec["templates"][k % len(spec["templates"])]
        values = {v: rng.randint(lo, hi) for v, (lo, hi) in tpl["ranges"].items()}
        if "t" in tpl:
            values["t"] = int(evaluate(_filled(tpl["t"], values)))
        words = {"name": rng.choice(spec["names"]), "item": rng.choice(spec["items"]), **values}
        question = tpl["text"].format(**words)
        expression = _filled(tpl["answer"], values)
        yield Problem(f"demo-{seed}-{k}", question, str(int(evaluate(expression))), None, "math",
                      {"source": "demo", "expression": expression})
