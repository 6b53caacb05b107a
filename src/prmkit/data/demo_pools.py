"""Built-in demo pools: the demo problems with procedurally written step-by-step traces, right and wrong.

For each demo problem (see `prmkit.data.demo_problems`) the correct trace computes its expression one operation per
step; the wrong traces make one slip (an arithmetic error, or the wrong operation) at a seeded step and carry
the error to the end. So `prmkit label --input demo` has correct and incorrect answers to contrast, with no
external data and no generation run.

    >>> pool = demo_pools(1)[0]
    >>> [t.correct for t in pool.traces]
    [True, False, False, False]
"""

from __future__ import annotations

import random
import re

from prmkit.data.demo_problems import demo_problems
from prmkit.data.records import Pool, Trace

__all__ = ["demo_pools"]

_APPLY = {"+": lambda x, y: x + y, "-": lambda x, y: x - y, "*": lambda x, y: x * y, "//": lambda x, y: x // y}
_SWAP = {"+": "-", "-": "+", "*": "+", "//": "-"}


def _solve(expression: str, slip: tuple[int, str] | None, rng: random.Random) -> tuple[list[str], int]:
    """Steps computing `expression` left to right (the demo shapes put `*` first); `slip` = (step, kind).

    A sharing problem (its expression is the quotient alone) is computed as `total // count`.
    """
    tokens = expression.split()
    acc = int(tokens[0])
    pairs = list(zip(tokens[1::2], map(int, tokens[2::2]), strict=True)) or [("+", 0)]
    steps = []
    for k, (op, y) in enumerate(pairs):
        if slip and slip[0] == k and slip[1] == "operation":
            op = _SWAP[op]
        result = _APPLY[op](acc, y)
        if slip and slip[0] == k and (slip[1] == "arithmetic" or result == _APPLY[pairs[k][0]](acc, y)):
            result += rng.choice([-2, -1, 1, 2, 10])
        steps.append(f"We compute {acc} {op.replace('//', '/')} {y} = {result}.")
        acc = result
    return steps, acc


def demo_pools(n: int = 20, seed: int = 0, wrong: int = 3) -> list[Pool]:
    """`n` demo problems, each with one correct trace and `wrong` traces with one seeded slip."""
    rng = random.Random(seed)
    pools = []
    for problem in demo_problems(n, seed):
        expression = problem.meta["expression"]
        if len(expression.split()) == 1:  # a sharing problem: its question holds the total and the count
            total, count = re.findall(r"\d+", problem.question)[:2]
            expression = f"{total} // {count}"
        n_ops = max(1, len(expression.split()) // 2)
        traces = []
        for j in range(1 + wrong):
            slip = None if j == 0 else (rng.randrange(n_ops), rng.choice(["arithmetic", "operation"]))
            steps, result = _solve(expression, slip, rng)
            steps.append(f"The answer is {result}.")
            answer = str(result)
            traces.append(Trace(f"{problem.id}/t{j}", problem.id, steps, answer, answer == problem.answer, "demo"))
        pools.append(Pool(problem, traces))
    return pools
