"""The step-label bench's data (`prmkit bench`): arithmetic word problems with their computation graph, and
constructed traces whose every step has a known truth (docs/bench.md)."""

import functools
import itertools
import math
import random
from dataclasses import dataclass
from fractions import Fraction

from prmkit.data.demo_problems import APPLY, demo_problems
from prmkit.data.records import Pool, Problem, StepLabels, Trace

__all__ = ["PROCESS_ONLY", "SIZES", "SLIPS", "BenchTrace", "bench_problems", "check_difficulty", "constructed_traces",
           "graph_rows", "path_values", "truth_labels"]

SIZES = {"small": 20, "medium": 100, "large": 1000}
SLIPS = ("arithmetic", "operation", "operand", "drop", "answer", "corrected", "compensated")
PROCESS_ONLY = ("corrected", "compensated")
MAX_LEVEL = 8

_NAMES = ("Ana", "Ben", "Carla", "Dev", "Emma", "Farid", "Grace", "Hugo", "Ines", "Jon", "Kira", "Liam", "Maya",
          "Noah", "Olga", "Pablo")
_ITEMS = ("apples", "pencils", "stickers", "marbles", "cookies", "books", "stamps", "shells", "coins", "cards")
_FACTOR_WORDS = {2: "doubles", 3: "triples", 4: "quadruples"}

Row = tuple[str, int, int, int]  # (op, a, b, value): one computation a op b = value


def graph_rows(problem: Problem) -> list[Row]:
    """The computation graph of a bench problem, as (op, a, b, value) rows in solving order."""
    return [tuple(r) for r in problem.meta["graph"]]  # type: ignore[misc]


def _sentence(rng: random.Random, acc: int, top: int, left: int, name: str, item: str) -> tuple[str, list[Row],
                                                                                              list[int]]:
    """One story sentence applied to the count `acc`: its text, computation rows and stated numbers."""
    kinds = ["+", "-"]
    if acc <= top * 5:
        kinds += ["*"]
    if any(acc % d == 0 for d in (2, 3, 4, 5)) and acc >= 4:
        kinds += ["/"]
    if left >= 2:
        kinds += ["bags", "bags"]
    kind = rng.choice(kinds)
    if kind == "bags":
        c, b = rng.randint(2, 6 if top <= 20 else 9), rng.randint(2, max(3, top // 2))
        text = f"{name} buys {c} bags with {b} {item} in each bag."
        return text, [("*", c, b, c * b), ("+", acc, c * b, acc + c * b)], [c, b]
    if kind == "+":
        b = rng.randint(2, top)
        text = rng.choice([f"{name} buys {b} more {item}.", f"A friend gives {name} {b} {item}.",
                           f"{name} finds {b} {item}."])
    elif kind == "-" and acc > 2:
        b = rng.randint(1, min(top, acc - 1))
        text = rng.choice([f"{name} gives {b} {item} to a friend.", f"{name} loses {b} {item}.",
                           f"{name} sells {b} of the {item}."])
    elif kind == "*":
        b = rng.choice([2, 3, 4]) if top <= 20 else rng.randint(2, 5)
        text = (f"The number of {item} {name} has {_FACTOR_WORDS[b]}." if b in _FACTOR_WORDS and rng.random() < 0.5
                else f"{name} collects more {item} until {name} has {b} times as many as before.")
    elif kind == "/":
        b = rng.choice([d for d in (2, 3, 4, 5) if acc % d == 0])
        text = f"{name} splits the {item} into {b} equal piles and keeps one pile."
    else:  # "-" on a count too small to take from: buy instead
        kind, b = "+", rng.randint(2, top)
        text = f"{name} buys {b} more {item}."
    return text, [(kind, acc, b, APPLY[kind](acc, b))], [b]


def _problem(rng: random.Random, level: int, size: str, pid: str) -> Problem:
    top = SIZES[size]
    name, item = rng.choice(_NAMES), rng.choice(_ITEMS)
    acc = rng.randint(max(3, top // 4), top)
    sentences, rows, quantities = [f"{name} has {acc} {item}."], [], [acc]
    while len(rows) < level:
        text, new, stated = _sentence(rng, acc, top, level - len(rows), name, item)
        sentences.append(text)
        rows += new
        quantities += stated
        acc = new[-1][3]
    question = " ".join([*sentences, f"How many {item} does {name} have now?"])
    return Problem(pid, question, str(acc), None, "math",
                   {"source": "bench", "level": level, "size": size, "name": name, "item": item,
                    "quantities": quantities, "graph": [list(r) for r in rows]})


def check_difficulty(levels: str, size: str) -> list[int]:
    """The levels of a comma-separated `levels` ("1,2,3"); ValueError for an unknown `size`, a non-integer, no
    level, or one outside 1..MAX_LEVEL."""
    if size not in SIZES:
        raise ValueError(f"unknown size '{size}'; choose from {', '.join(SIZES)}")
    try:
        out = [int(x) for x in levels.split(",") if x.strip()]
    except ValueError:
        raise ValueError(f"levels must be integers, comma-separated; got '{levels}'") from None
    if not out:
        raise ValueError("give at least one level")
    if bad := [lv for lv in out if not 1 <= lv <= MAX_LEVEL]:
        raise ValueError(f"level(s) {bad} outside the templates' 1..{MAX_LEVEL} operations")
    return out


def bench_problems(n: int, seed: int = 0, levels: tuple[int, ...] = (1, 2, 3, 4, 5, 6), size: str = "small",
                   exclude_demo: int = 200) -> list[Problem]:
    """`n` problems spread evenly over `levels` (round robin), the same for the same arguments; ids
    `bench-<size>-<seed>-<k>`. Questions equal to one of the first `exclude_demo` demo problems are skipped."""
    if size not in SIZES:
        raise ValueError(f"unknown size '{size}'; choose from {', '.join(SIZES)}")
    if bad := [lv for lv in levels if not 1 <= lv <= MAX_LEVEL]:
        raise ValueError(f"level(s) {bad} outside the templates' 1..{MAX_LEVEL} operations")
    if n < 1 or not levels:
        raise ValueError("need at least one problem and one level")
    held = {p.question for p in demo_problems(exclude_demo, 0)} if exclude_demo else set()
    rng = random.Random(f"bench-{size}-{seed}")
    out: list[Problem] = []
    k = 0
    while len(out) < n:
        p = _problem(rng, levels[len(out) % len(levels)], size, f"bench-{size}-{seed}-{k}")
        k += 1
        if p.question not in held:
            out.append(p)
    return out


def _kind(op: str) -> str | None:
    return "add" if op in "+-" else "mul" if op == "*" else None


def _run_values(start: int, run: list[tuple[str, int]]) -> set[Fraction]:
    """Partial results of any reordering of `run` ((op, operand) of one kind) applied to `start`: start with any
    subset applied, and the operands of one sign combined first (`15 + 6` before adding them to the count)."""
    out: set[Fraction] = set()
    for size in range(1, len(run) + 1):
        for subset in itertools.combinations(run, size):
            out.add(functools.reduce(lambda acc, ox: APPLY[ox[0]](acc, ox[1]), subset, Fraction(start)))
            if size > 1 and len({o for o, _ in subset}) == 1:  # one sign: its operands combined first
                operands = [Fraction(x) for _, x in subset]
                out.add(math.prod(operands) if subset[0][0] == "*" else sum(operands))
    return out


def path_values(problem: Problem) -> set[Fraction]:
    """The values of the solution path: the stated numbers, every node's result, and the partial results of any
    reordering of a run of +/- (or *) on the running count (docs/bench.md)."""
    rows = problem.meta["graph"]
    values = {Fraction(q) for q in problem.meta["quantities"]} | {Fraction(r[3]) for r in rows}
    start, run = 0, []  # the current run of one kind on the running count
    for k, (op, a, b, _) in enumerate(rows):
        if _kind(op) is None:  # a division ends a run
            continue
        if not (k > 0 and a == rows[k - 1][3] and _kind(op) == _kind(rows[k - 1][0])):
            start, run = a, []
        run.append((op, b))
        if len(run) <= 8:
            values |= _run_values(start, run)
    return values


@dataclass
class BenchTrace:
    """A constructed trace with its truth: the trace, its step labels (1 before the first error, 0 from it on),
    the first error (-1: none) and the slip that made it ("" for the right trace)."""

    trace: Trace
    labels: list[int]
    first_error: int
    slip: str


def _phrase(rng: random.Random, row: Row, item: str, name: str) -> str:
    op, a, b, v = row
    e = f"{a} {op} {b} = {v}"
    return rng.choice([f"{name} has {e} {item}.", f"Now there are {e} {item}.", f"So {e}.", f"We compute {e}.",
                       f"That makes {e} {item}."])


def _wrong_value(rng: random.Random, v: int, avoid: set[Fraction]) -> int:
    """A slipped result near `v` that is not in `avoid` (the solution path's values)."""
    for d in rng.sample([-10, -3, -2, -1, 1, 2, 3, 10], 8):
        if v + d >= 0 and v + d not in avoid:
            return v + d
    return max(avoid) + 1  # type: ignore[return-value]


def _slipped_rows(rows: list[Row], slip: str, k: int, rng: random.Random,
                  avoid: set[Fraction]) -> tuple[list[Row], int | None, int]:
    """(rows a slip at row k writes, the answer line's number or None for the last row's value, first wrong row)."""
    out = list(rows)
    if slip in PROCESS_ONLY:
        op, a, b, v = rows[k]
        out[k] = (op, a, b, wrong := _wrong_value(rng, v, avoid))
        if k + 1 < len(rows) and slip == "compensated":
            op, a, b, v2 = rows[k + 1]
            # the next row reads the wrong value but still lands on its right result (wrong arithmetic)
            a2, b2 = (wrong, b) if a == v else (a, wrong) if b == v else (a, b)
            out[k + 1] = (op, a2, b2, v2)
        return out, rows[-1][3], k
    if slip == "answer":
        final = rows[-1][3]
        others = sorted(({r[1] for r in rows} | {r[2] for r in rows} | {r[3] for r in rows[:-1]}) - {final})
        value = rng.choice(others) if others and rng.random() < 0.6 else _wrong_value(rng, final, avoid)
        return out, value, len(rows)
    if slip == "drop" and len(rows) > 1 and rows[-2][3] != rows[-1][3]:
        return out[:-1], None, len(rows) - 1  # the answer line (index len-1) is the error
    # carried slips: arithmetic, operation, operand (and drop on one-row problems: an arithmetic slip)
    op, a, b, v = rows[k]
    new = (op, a, b, _wrong_value(rng, v, avoid))  # an arithmetic slip, and the fallback of the two others
    if slip == "operation":
        if choices := [o for o in "+-*" if o != op and APPLY[o](a, b) >= 0 and APPLY[o](a, b) not in avoid]:
            o2 = rng.choice(choices)
            new = (o2, a, b, APPLY[o2](a, b))
    elif slip == "operand":
        misread = [b + d for d in (-3, -2, 2, 3, 5) if b + d > 0 and (op != "-" or a >= b + d)
                   and (op != "/" or a % (b + d) == 0) and APPLY[op](a, b + d) not in avoid]
        if misread:
            b2 = rng.choice(misread)
            new = (op, a, b2, APPLY[op](a, b2))
    out[k] = new
    subst = {v: new[3]}  # right value -> the wrong one written instead, carried to later rows
    for j in range(k + 1, len(rows)):
        op2, a2, b2, v2 = rows[j]
        a2, b2 = subst.get(a2, a2), subst.get(b2, b2)
        if op2 == "/" and (b2 == 0 or a2 % b2):
            op2 = "-" if a2 > b2 else "+"
        out[j] = (op2, a2, b2, APPLY[op2](a2, b2))
        subst[v2] = out[j][3]
    return out, None, k


def constructed_traces(problem: Problem, slips: tuple[str, ...], rng: random.Random) -> list[BenchTrace]:
    """The right trace (id `<problem>/c0`) and one trace per slip kind in `slips` (ids `/c1`, ...), each slip at a
    random row. Steps: one computation each, then "The answer is $N$."."""
    rows = graph_rows(problem)
    avoid = path_values(problem)
    name, item = problem.meta["name"], problem.meta["item"]
    out = []
    for j, slip in enumerate(("", *slips)):
        k = rng.randrange(len(rows))
        written, value, first = (rows, None, -1) if not slip else _slipped_rows(rows, slip, k, rng, avoid)
        final = written[-1][3] if value is None else value
        steps = [_phrase(rng, r, item, name) for r in written] + [f"The answer is ${final}$."]
        trace = Trace(f"{problem.id}/c{j}", problem.id, steps, str(final), str(final) == problem.answer,
                      "bench-constructed")
        out.append(BenchTrace(trace, truth_labels(len(steps), first), first, slip))
    return out


def truth_labels(n_steps: int, first_error: int) -> list[int]:
    """1 before the first error, 0 from it on (all 1 when `first_error` is -1)."""
    return [1 if first_error < 0 or i < first_error else 0 for i in range(n_steps)]


def constructed_pools(problems: list[Problem], slips: tuple[str, ...], seed: int) -> tuple[list[Pool],
                                                                                          list[StepLabels]]:
    """A pool of constructed traces per problem and their truth records (method "truth")."""
    rng = random.Random(f"constructed-{seed}")
    pools, truth = [], []
    for p in problems:
        traces = constructed_traces(p, slips, rng)
        pools.append(Pool(p, [t.trace for t in traces]))
        truth += [StepLabels(t.trace.id, "truth", [float(x) for x in t.labels], t.labels, 0.5,
                             {"slip": t.slip, "first_error": t.first_error, "level": p.meta["level"]},
                             t.trace.correct, p.id) for t in traces]
    return pools, truth
