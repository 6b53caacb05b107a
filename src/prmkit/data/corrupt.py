"""A step-level benchmark with known first errors (`prmkit data corrupt`): one calculator annotation of a GSM8K
reference solution given a wrong value, carried into the later ones (docs/formats.md)."""

import ast
import itertools
import random
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from prmkit.data.answers import answer_key
from prmkit.data.arith import BINARY_OPS, NUMBER, ArithError, evaluate, format_number, matches, parse_number
from prmkit.data.gsm8k import split_solution
from prmkit.data.jsonl import DataError, iter_input, write_records
from prmkit.data.outputs import claim_outputs, claims
from prmkit.data.records import Pool, Problem, Trace
from prmkit.data.settings import LIMIT, SEED, check_limits, comma_list
from prmkit.data.steplevel import StepRecord, write_processbench

__all__ = ["BALANCE_KEYS", "WRONG_VALUES", "CorruptConfig", "Corruption", "annotations", "build_benchmark",
           "corrupt_at", "pick_balanced", "safe_corruptions", "step_of", "substitute_numbers", "write_benchmark"]

_ANNOTATION = re.compile(r"<<([^<>=]*)=([^<>]*)>>")
_TEXT_NUMBER = re.compile(r"(?<![\d.,])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?!\d|[.,]\d)")


@dataclass
class Annotation:
    start: int
    end: int
    expr: str
    value: Fraction


@dataclass
class Corruption:
    """A corrupted solution: its raw text (annotations kept), first wrong step (`step`, a 0-based index as
    `StepRecord.first_error`; a corruption always has one), and what was changed."""

    text: str
    step: int
    kind: str
    original: str
    wrong: str
    changed: dict[str, str] = field(default_factory=dict)  # every value that changed: old -> new
    last: bool = False  # the error is in the final step (nothing after it to carry the wrong value)


def annotations(text: str) -> list[Annotation]:
    """The calculator annotations of a solution; ArithError when one is unsafe or disagrees with its result."""
    out = []
    for m in _ANNOTATION.finditer(text):
        value = evaluate(m.group(1))
        if not matches(value, m.group(2).strip()):
            raise ArithError(f"annotation {m.group(0)} does not evaluate to its result")
        out.append(Annotation(m.start(), m.end(), m.group(1), value))
    return out


def step_of(text: str, pos: int) -> int:
    """Index of the step (non-blank line) holding character `pos`."""
    return sum(1 for line in text[:pos].split("\n")[:-1] if line.strip())


def _off_by(expr: str, value: Fraction, rng: random.Random) -> tuple[str, Fraction] | None:
    unit = Fraction(1) if value.denominator == 1 else Fraction(1, 10)
    delta = rng.choice([1, 2, 3, 5, 10]) * unit * rng.choice([-1, 1])
    return (expr, value + delta) if value + delta >= 0 or value < 0 else (expr, value - delta)


def _digit_slip(expr: str, value: Fraction, rng: random.Random) -> tuple[str, Fraction] | None:
    """Swap two adjacent different digits (24 -> 42), or else change one digit by one (24 -> 25)."""
    digits = list(format_number(value).lstrip("-"))
    pairs = [i for i in range(len(digits) - 1) if digits[i] != digits[i + 1] and "." not in digits[i:i + 2]
             and not (i == 0 and digits[1] == "0")]
    if pairs:
        i = rng.choice(pairs)
        digits[i], digits[i + 1] = digits[i + 1], digits[i]
    else:
        i = rng.choice([j for j, d in enumerate(digits) if d != "."])
        digits[i] = str((int(digits[i]) + rng.choice([1, 9])) % 10)
        if i == 0 and digits[0] == "0" and len(digits) > 1 and digits[1] != ".":
            digits[0] = "1"
    return expr, parse_number(("-" if value < 0 else "") + "".join(digits))


def _wrong_operation(expr: str, value: Fraction, rng: random.Random) -> tuple[str, Fraction] | None:
    """The top-level operator replaced by another (48/2 -> 48*2); the annotation shows the new expression."""
    tree = ast.parse(expr.strip(), mode="eval")
    if not isinstance(tree.body, ast.BinOp):
        return None
    tree.body.op = rng.choice([op for op in BINARY_OPS if op is not type(tree.body.op)])()
    new_expr = ast.unparse(tree).replace(" ", "")
    return new_expr, evaluate(new_expr)  # an ArithError (48/0) makes `corrupt_at` give None


# name -> (expression, correct value, rng) -> (expression shown, wrong value), or None when it does not apply
WRONG_VALUES: dict[str, Callable[[str, Fraction, random.Random], tuple[str, Fraction] | None]] = {
    "off_by": _off_by, "digit_slip": _digit_slip, "wrong_operation": _wrong_operation}


def substitute_numbers(text: str, mapping: dict[Fraction, Fraction], numbers: re.Pattern[str] = _TEXT_NUMBER) -> str:
    """Replace every number of `text` (found by `numbers`) whose value is a key of `mapping` (`1,000` = `1000`)."""
    def repl(m: re.Match[str]) -> str:
        value = parse_number(m.group(0))
        if value not in mapping:
            return m.group(0)
        new = format_number(mapping[value])
        return f"{int(new):,}" if "," in m.group(0) and new.isdigit() else new
    return numbers.sub(repl, text)


def _seen_before(question: str, text: str, pos: int) -> set[Fraction]:
    return {parse_number(n) for n in _TEXT_NUMBER.findall(question + "\n" + text[:pos])}


def _propagate(question: str, text: str, anns: list[Annotation], j: int, wrong: Fraction
               ) -> tuple[dict[Fraction, Fraction], list[str]] | None:
    """Old -> new value of every annotation from j on, and their new expressions; None when ambiguous."""
    mapping = {anns[j].value: wrong}
    seen = _seen_before(question, text, anns[j].start) | set(map(parse_number, NUMBER.findall(anns[j].expr)))
    if anns[j].value in seen:
        return None
    exprs = []
    for a in anns[j + 1:]:
        if a.value in mapping:
            return None  # the same value made twice: which later use means which is ambiguous
        expr = substitute_numbers(a.expr, mapping, NUMBER)
        try:
            value = evaluate(expr)
        except ArithError:
            return None
        if value != a.value:
            if a.value in _seen_before(question, text, a.start):
                return None
            mapping[a.value] = value
        exprs.append(expr)
    return mapping, exprs


def corrupt_at(question: str, text: str, j: int, kind: str, rng: random.Random) -> Corruption | None:
    """Corrupt annotation j of solution `text` with WRONG_VALUES[kind]; None when unsafe or the answer is unchanged."""
    anns = annotations(text)
    a = anns[j]
    try:
        made = WRONG_VALUES[kind](a.expr, a.value, rng)
    except (ArithError, ValueError):
        return None
    if made is None or format_number(made[1]) == format_number(a.value):
        return None
    shown, wrong = made
    if (prop := _propagate(question, text, anns, j, wrong)) is None:
        return None
    mapping, exprs = prop
    before = text[:a.start]
    if shown != a.expr and before.rstrip(" =$").endswith(a.expr):  # show the wrong operation in the text too
        cut = before.rstrip(" =$")
        before = cut[: len(cut) - len(a.expr)] + shown + before[len(cut):]
    parts = [before, f"<<{shown}={format_number(wrong)}>>"]
    for i, later in enumerate([*anns[j + 1:], None]):
        stop = later.start if later else len(text)
        parts.append(substitute_numbers(text[anns[j + i].end:stop], mapping))
        if later:
            parts.append(f"<<{exprs[i]}={format_number(evaluate(exprs[i]))}>>")
    return _checked(text, "".join(parts), step_of(text, a.start), kind, a, wrong, mapping)


def _checked(text: str, new_text: str, k: int, kind: str, a: Annotation, wrong: Fraction,
             mapping: dict[Fraction, Fraction]) -> Corruption | None:
    """Keep the corruption only if steps before k are unchanged, step k differs and the final answer changed."""
    ref_steps, ref_answer = split_solution(text)
    steps, answer = split_solution(new_text)
    if len(steps) != len(ref_steps) or steps[:k] != ref_steps[:k] or steps[k] == ref_steps[k]:
        return None
    if answer is None or ref_answer is None or answer_key(answer) == answer_key(ref_answer):
        return None
    changed = {format_number(old): format_number(new) for old, new in mapping.items()}
    return Corruption(new_text, k, kind, format_number(a.value), format_number(wrong), changed, k == len(steps) - 1)


def safe_corruptions(question: str, text: str, rng: random.Random, kinds: list[str]) -> Iterator[Corruption]:
    """One corruption per annotation that admits one (kinds tried in a seeded order), in annotation order."""
    for j in range(len(annotations(text))):
        for kind in rng.sample(kinds, len(kinds)):
            if (c := corrupt_at(question, text, j, kind, rng)) is not None:
                yield c
                break


# name -> the key whose counts are balanced: the error step, or the error step with the final step its own bucket
BALANCE_KEYS: dict[str, Callable[[Corruption], int | str]] = {
    "step": lambda c: c.step, "step_or_final": lambda c: "final" if c.last else c.step}


def pick_balanced(options: list[Corruption], counts: Counter, rng: random.Random,
                  key: Callable[[Corruption], int | str] = BALANCE_KEYS["step"]) -> Corruption:
    """The option whose key (default: error step) is the least used so far (ties by `rng`); updates `counts`."""
    best = min(counts[key(c)] for c in options)
    choice = rng.choice([c for c in options if counts[key(c)] == best])
    counts[key(choice)] += 1
    return choice


@dataclass
class CorruptConfig:
    """Settings of `prmkit data corrupt`."""

    input: str = field(default="../shared/data/gsm8k/train.jsonl",
                       metadata={"help": "GSM8K file of {question, answer} lines with <<a*b=c>> annotations",
                                 "role": "input"})
    output: str = field(default="runs/corrupt/benchmark.jsonl",
                        metadata={"help": "ProcessBench-style records (reference label -1, corrupted label k)",
                                  "role": "output"})
    pools: str | None = field(default=None, metadata={"help": "also write a Pool per problem (reference + "
                                                               "corrupted trace) here, for `prmkit label`",
                                                      "role": "output"})
    limit: int | None = field(default=None, metadata={"help": "use only the first N problems of the input",
                                                      "range": LIMIT})
    seed: int = field(default=0, metadata={"help": "seed of the wrong values and the error-step choice", "range": SEED})
    kinds: str = field(default="off_by,digit_slip,wrong_operation",
                       metadata={"help": f"comma list of wrong-value kinds: {', '.join(WRONG_VALUES)}"})
    balance: str = field(default="step", metadata={"help": "what error choice balances: step (error position) | "
                                                           "step_or_final (final-step errors one bucket)"})

    def __post_init__(self) -> None:
        check_limits(self)


def build_benchmark(cfg: CorruptConfig) -> tuple[list[StepRecord], list[Pool], dict[str, Any]]:
    """(records, pools, report of what was skipped) of the first `cfg.limit` GSM8K problems; record ids = trace ids."""
    kinds = comma_list(cfg.kinds)
    if cfg.balance not in BALANCE_KEYS:
        raise ValueError(f"unknown balance {cfg.balance!r}; choose from {sorted(BALANCE_KEYS)}")
    if unknown := [k for k in kinds if k not in WRONG_VALUES]:
        raise ValueError(f"unknown wrong-value kinds {unknown}; choose from {sorted(WRONG_VALUES)}")
    records: list[StepRecord] = []
    pools: list[Pool] = []
    skipped: Counter[str] = Counter()
    counts: Counter = Counter()
    chosen: list[Corruption] = []
    for k, (lineno, obj) in enumerate(itertools.islice(iter_input(cfg.input), cfg.limit)):
        question, text = obj.get("question"), obj.get("answer")
        if not isinstance(question, str) or not isinstance(text, str):
            raise DataError(f"{cfg.input}:{lineno}: fields 'question' and 'answer' must be strings")
        rng = random.Random(f"{cfg.seed}:{k}")
        try:
            options = list(safe_corruptions(question, text, rng, kinds))
        except ArithError:
            skipped["annotation not evaluable"] += 1
            continue
        if not options:
            skipped["no annotations" if not _ANNOTATION.search(text) else "no safe corruption"] += 1
            continue
        c = pick_balanced(options, counts, rng, BALANCE_KEYS[cfg.balance])
        chosen.append(c)
        pool, pair = _pair(f"gsm8k-train-{k}", question, text, c, lineno)
        pools.append(pool)
        records.extend(pair)
    if not records:
        raise DataError(_nothing_usable(cfg.input, skipped))
    return records, pools, {
        "problems": len(pools) + sum(skipped.values()), "usable": len(pools), "records": len(records),
        "skipped": dict(skipped), "error_steps": dict(sorted(Counter(c.step for c in chosen).items())),
        "final_step_errors": sum(c.last for c in chosen), "kinds": dict(Counter(c.kind for c in chosen))}


def _pair(pid: str, question: str, text: str, c: Corruption, lineno: int) -> tuple[Pool, list[StepRecord]]:
    ref_steps, gold = split_solution(text)
    steps, wrong_answer = split_solution(c.text)
    assert gold is not None and wrong_answer is not None  # checked by _checked
    problem = Problem(pid, question, gold, "\n".join(ref_steps), "math", {"source": "gsm8k", "line": lineno})
    ref = Trace(f"{pid}/reference", pid, ref_steps, gold, True, "reference")
    bad = Trace(f"{pid}/corrupt", pid, steps, wrong_answer, False, f"corrupt:{c.kind}")
    meta = {"kind": c.kind, "original": c.original, "wrong": c.wrong, "changed": c.changed}
    return Pool(problem, [ref, bad]), [
        StepRecord(ref.id, question, ref_steps, -1, True, pid, gold, gold, {"source": "gsm8k reference"}),
        StepRecord(bad.id, question, steps, c.step, False, pid, gold, wrong_answer, meta)]


def _nothing_usable(path: str | None, skipped: Counter[str]) -> str:
    """Why no benchmark record came of `path`: an empty input, or what skipped each of its problems."""
    if not skipped:
        return f"{path}: no problems (the input is empty): give a GSM8K-style JSONL (question, answer)"
    reasons = ", ".join(f"{why} ({n})" for why, n in skipped.most_common())
    return (f"{path}: none of its {sum(skipped.values())} problems gives a corrupted trace ({reasons}): a GSM8K "
            "answer needs calculator annotations <<a+b=c>> to corrupt; nothing is written")


def write_benchmark(cfg: CorruptConfig) -> dict[str, Any]:
    """Build the benchmark and write it (and the pools when `cfg.pools`); returns the report."""
    with claim_outputs(**claims(cfg)):
        records, pools, report = build_benchmark(cfg)
        write_processbench(cfg.output, records)
        if cfg.pools:
            write_records(cfg.pools, pools)
    return report | {"output": cfg.output, "pools": cfg.pools}
