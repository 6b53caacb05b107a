"""Synthetic arithmetic word problems from the demo templates, one right and `wrong` slipped traces each, with their
true step labels (`prmkit data synth`; slips and labels: docs/train.md)."""

import json
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from prmkit.data.demo_problems import APPLY, demo_problems, iter_demo_problems
from prmkit.data.outputs import atomic_path, claim_outputs, claims
from prmkit.data.records import Pool, StepLabels, Trace
from prmkit.data.settings import NON_NEGATIVE, SEED, Range, check_limits
from prmkit.data.settings import field_help as _help

__all__ = ["MAX_PROBLEMS", "SLIPS", "STYLES", "SynthConfig", "build_synthetic", "demo_operations", "iter_synthetic",
           "render_policy_style", "solve_with_slip", "write_synthetic"]

SLIPS = ("arithmetic", "operation", "operand", "answer", "extra", "drop", "pairing")
_ROW_SLIPS = ("arithmetic", "operation", "operand")
STYLES = ("plain", "policy")
MAX_PROBLEMS = 1_000_000  # problems one run writes (streamed: memory does not grow with the count)
MAX_WRONG = 1000  # wrong traces per problem
_SWAP = {"+": "-", "-": "+", "*": "+", "/": "-"}
_PHRASES = ("We compute {e}.", "{name} has {e} {item}.", "There are {e} {item}.", "So {e}.",
            "That makes {e} {item} in all.")
_ANSWERS = ("The answer is {r}.", "The answer is ${r}.", "The answer is {r} {item}.")


@dataclass
class SynthConfig:
    """`prmkit data synth`: synthetic arithmetic problems, one right and `wrong` slipped traces each, true labels."""

    problems: int = field(default=300, metadata=_help("problems to write.", range=Range(
        1, MAX_PROBLEMS, note="one run streams its files, but more would take hours and tens of GB: write several "
                              "files with other seeds")))
    seed: int = field(default=1, metadata=_help("problem and slip seed (the demo set is seed 0: use another).",
                                                range=SEED))
    wrong: int = field(default=3, metadata=_help("wrong traces per problem, one slip each.", range=Range(0, MAX_WRONG)))
    slips: str = field(default="arithmetic,operation,operand", metadata=_help(
        f"slip kinds drawn uniformly, comma-separated: {' | '.join(SLIPS)}."))
    style: str = field(default="plain", metadata=_help(
        "plain: one computation per step, one answer line | policy: also merged steps, restated facts, answer "
        "lines with the last computation, any wrong operation, wider slips (like the embedded policy's samples)."))
    exclude_demo: int = field(default=200, metadata=_help(
        "skip problems whose question is one of the first N demo problems (seed 0), which stay held out.",
        range=NON_NEGATIVE))
    output: str | None = field(default=None, metadata=_help("Pool JSONL to write (required).", role="output"))
    labels: str | None = field(default=None, metadata=_help("StepLabels JSONL of the true labels (required).",
                                                            role="output"))

    def __post_init__(self) -> None:
        check_limits(self)
        if unknown := [s for s in self.slips.split(",") if s not in SLIPS]:
            raise ValueError(f"unknown slip kind(s) {unknown}; choose from {', '.join(SLIPS)}")
        if self.style not in STYLES:
            raise ValueError(f"unknown style '{self.style}'; choose from {', '.join(STYLES)}")


def demo_operations(question: str, expression: str) -> tuple[int, list[tuple[str, int]]]:
    """(first value, [(op, operand), ...]) of a demo expression; a sharing problem is `total / count`."""
    tokens = expression.split()
    if len(tokens) == 1:  # a sharing problem: its question holds the total and the count
        total, count = re.findall(r"\d+", question)[:2]
        return int(total), [("/", int(count))]
    return int(tokens[0]), [(op, int(y)) for op, y in zip(tokens[1::2], tokens[2::2], strict=True)]


def _slipped_result(result: int, rng: random.Random, wide: bool) -> int:
    if not wide:
        return result + rng.choice([-2, -1, 1, 2, 10])
    digits = str(abs(result))
    if len(digits) > 1 and digits[0] != digits[-1] and rng.random() < 0.3:  # swapped digits: 43 -> 34
        return int(digits[::-1]) * (1 if result >= 0 else -1)
    return result + rng.choice([-10, -9, -5, -3, -2, -1, 1, 2, 3, 5, 9, 10])


def solve_with_slip(first: int, ops: list[tuple[str, int]], slip: tuple[int, str] | None,
                    rng: random.Random, wide: bool = False) -> tuple[list[tuple[int, str, int, int]], list[int], int]:
    """The computation as (a, op, b, result) rows with `slip` = (row, kind) applied, each row's true label, and the
    final value. `wide`: any wrong operation, wider slips. An `answer` slip keeps every row right and returns another
    number: 70% of the time a number of the question or an earlier result, else the answer off by 1 or 10."""
    rows, labels, acc, wrong = [], [], first, False
    for k, (op, b) in enumerate(ops):
        a, o = acc, op
        kind = slip[1] if slip and slip[0] == k and slip[1] in _ROW_SLIPS else None
        if kind == "operation":
            o = rng.choice([w for w in APPLY if w != op and (w != "/" or (b and a % b == 0))]) if wide else _SWAP[op]
        elif kind == "operand":
            b = max(1, b + rng.choice([-3, -2, 2, 3, 5, 7]))
        result = APPLY[o](a, b)
        if kind == "arithmetic" or (kind and result == APPLY[op](acc, ops[k][1])):
            result = _slipped_result(result, rng, wide)
        wrong = wrong or kind is not None
        rows.append((a, o, b, result))
        labels.append(0 if wrong else 1)
        acc = result
    if slip and slip[1] == "answer":
        others = sorted({first, *(b for _, b in ops), *(r for *_, r in rows[:-1])} - {acc})
        return rows, labels, rng.choice(others) if others and rng.random() < 0.7 else acc + rng.choice([-1, 1, 10])
    if slip and slip[1] in ("extra", "drop", "pairing"):
        return _restructure(first, ops, rows, labels, slip, rng)
    return rows, labels, acc


def _restructure(first: int, ops: list[tuple[str, int]], rows: list[tuple[int, str, int, int]], labels: list[int],
                 slip: tuple[int, str], rng: random.Random) -> tuple[list[tuple[int, str, int, int]], list[int], int]:
    """The right rows changed by a structural slip (`extra`; `drop` and `pairing` fall back to it where they cannot
    change the answer), every computation right, the final value wrong."""
    right = rows[-1][3]
    if slip[1] == "drop" and len(rows) > 1 and rows[-2][3] != right:
        return rows[:-1], labels[:-1], rows[-2][3]
    if slip[1] == "pairing" and len(rows) > 1:
        k = max(1, slip[0])
        _, op, b, _ = rows[k]
        paired = [*rows[:k], (first, op, b, APPLY[op](first, b))]
        acc = paired[-1][3]
        for _, op2, b2, _ in rows[k + 1:]:
            paired.append((acc, op2, b2, APPLY[op2](acc, b2)))
            acc = paired[-1][3]
        if acc != right:
            return paired, [*labels[:k], *[0] * (len(paired) - k)], acc
    numbers = [b for _, b in ops] + [first]
    for op, b in [(rng.choice(["*", "+", "-"]), rng.choice(numbers)), ("*", 2), ("+", 1)]:
        result = APPLY[op](right, b)
        if result != right:
            return [*rows, (right, op, b, result)], [*labels, 0], result
    raise AssertionError("unreachable: right + 1 differs from right")


def render_policy_style(rows: list[tuple[int, str, int, int]], labels: list[int], value: int, correct: bool,
                        question: str, words: dict[str, str], rng: random.Random,
                        asked: list[int] | None = None) -> tuple[list[str], list[int]]:
    """Steps and their true labels in the policy style: a restated sentence takes the label before it, one restated
    with a misread number (operand not `asked[k]`) is 0, two rows in one step take the later row's label."""
    facts = [f.strip() + "." for f in re.split(r"[.?]", question)[:-1] if f.strip() and "How many" not in f]
    phrases = [rng.choice(_PHRASES).format(e=f"{a} {o} {b} = {r}", **words) for a, o, b, r in rows]
    in_answer = value == rows[-1][3] and rng.random() < 0.35
    last = len(rows) - 1 if in_answer else len(rows)
    steps: list[str] = []
    out: list[int] = []
    k = 0
    while k < last:
        told = asked[k] if asked and k < len(asked) else rows[k][2]
        holding = [f for f in facts if re.search(rf"\b{told}\b", f)]
        if told != rows[k][2] and holding and rng.random() < 0.5:
            steps.append(re.sub(rf"\b{told}\b", str(rows[k][2]), rng.choice(holding), count=1))
            out.append(0)
        elif facts and rng.random() < 0.25:
            steps.append(rng.choice(facts))
            out.append(labels[k - 1] if k else 1)
        if k + 1 < last and rng.random() < 0.3:
            steps.append(f"{phrases[k]} {phrases[k + 1]}")
            out.append(labels[k + 1])
            k += 2
            continue
        steps.append(phrases[k])
        out.append(labels[k])
        k += 1
    if in_answer:
        a, o, b, r = rows[-1]
        steps.append(f"The answer is {a} {o} {b} = {r}" + rng.choice([".", " {item}.".format(**words)]))
    else:
        steps.append(rng.choice(_ANSWERS).format(r=value, **words))
    out.append(int(correct))
    return steps, out


def build_synthetic(cfg: SynthConfig) -> tuple[list[Pool], list[StepLabels], dict[str, Any]]:
    """The pools, their true StepLabels and a report."""
    report: dict[str, Any] = {}
    made = list(iter_synthetic(cfg, report))
    return [pool for pool, _ in made], [lab for _, labs in made for lab in labs], report


def iter_synthetic(cfg: SynthConfig, report: dict[str, Any]) -> Iterator[tuple[Pool, list[StepLabels]]]:
    """Each pool with its true StepLabels, one at a time; `report` is filled in when the last one is out."""
    rng = random.Random(cfg.seed)
    held = {p.question for p in demo_problems(cfg.exclude_demo, 0)} if cfg.exclude_demo else set()
    kinds = cfg.slips.split(",")
    written, skipped, made, n_steps, positive = 0, 0, 0, 0, 0
    for problem in iter_demo_problems(cfg.problems * 2 + cfg.exclude_demo, cfg.seed):
        if written == cfg.problems:
            break
        if problem.question in held:
            skipped += 1
            continue
        first, ops = demo_operations(problem.question, problem.meta["expression"])
        item = re.findall(r"[a-z]+(?= does| do| in each|\?)", problem.question)
        words = {"name": problem.question.split()[0], "item": item[0] if item else "items"}
        traces, labels = [], []
        for j in range(1 + cfg.wrong):
            slip = None if j == 0 else (rng.randrange(len(ops)), rng.choice(kinds))
            rows, step_labels, value = solve_with_slip(first, ops, slip, rng, wide=cfg.style == "policy")
            correct = str(value) == problem.answer
            if cfg.style == "policy":
                steps, truth = render_policy_style(rows, step_labels, value, correct, problem.question, words, rng,
                                                   [b for _, b in ops])
            else:
                steps = [rng.choice(_PHRASES).format(e=f"{a} {o} {b} = {r}", **words) for a, o, b, r in rows]
                steps.append(rng.choice(_ANSWERS).format(r=value, **words))
                truth = [*step_labels, int(correct)]
            trace = Trace(f"{problem.id}/t{j}", problem.id, steps, str(value), correct, "synthetic")
            traces.append(trace)
            params = {"slip": slip[1], "row": slip[0]} if slip else {}
            labels.append(StepLabels(trace.id, "truth", [float(x) for x in truth], truth, None, params, correct,
                                     problem.id))
            made += 1
            n_steps, positive = n_steps + len(truth), positive + sum(truth)
        written += 1
        yield Pool(problem, traces), labels
    report.update({"problems": written, "traces": made, "skipped_as_held_out": skipped, "steps": n_steps,
                   "positive_rate": round(positive / max(1, n_steps), 4)})


def write_synthetic(cfg: SynthConfig) -> dict[str, Any]:
    """Build and write the pools (`cfg.output`) and their true labels (`cfg.labels`); return the report."""
    if not cfg.output or not cfg.labels:
        raise ValueError("set --output (pools) and --labels (true step labels)")
    report: dict[str, Any] = {}
    with (claim_outputs(**claims(cfg)), atomic_path(cfg.output) as pools_tmp,
          atomic_path(cfg.labels) as labels_tmp, open(pools_tmp, "w", encoding="utf-8") as pools,
          open(labels_tmp, "w", encoding="utf-8") as labels):  # streamed: memory does not grow with the count
        for pool, labs in iter_synthetic(cfg, report):
            pools.write(json.dumps(pool.to_dict(), ensure_ascii=False) + "\n")
            labels.writelines(json.dumps(lab.to_dict(), ensure_ascii=False) + "\n" for lab in labs)
    return report | {"output": cfg.output, "labels": cfg.labels}
