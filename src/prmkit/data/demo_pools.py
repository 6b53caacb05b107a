"""Built-in demo pools (`--input demo`): each demo problem with one right trace and seeded one-slip wrong ones."""

import random

from prmkit.data.demo_problems import demo_problems
from prmkit.data.records import Pool, Trace
from prmkit.data.synthetic import demo_operations, solve_with_slip

__all__ = ["demo_pools"]


def demo_pools(n: int = 20, seed: int = 0, wrong: int = 3) -> list[Pool]:
    """`n` demo problems, each with one correct trace and `wrong` traces with one seeded slip."""
    rng = random.Random(seed)
    pools = []
    for problem in demo_problems(n, seed):
        first, ops = demo_operations(problem.question, problem.meta["expression"])
        traces = []
        for j in range(1 + wrong):
            slip = None if j == 0 else (rng.randrange(len(ops)), rng.choice(["arithmetic", "operation"]))
            rows, _, result = solve_with_slip(first, ops, slip, rng)
            steps = [f"We compute {a} {o} {b} = {r}." for a, o, b, r in rows] + [f"The answer is {result}."]
            answer = str(result)
            traces.append(Trace(f"{problem.id}/t{j}", problem.id, steps, answer, answer == problem.answer, "demo"))
        pools.append(Pool(problem, traces))
    return pools
