"""Step-level benchmark records (`StepRecord`, first wrong step 0-based, -1 = none): read from ProcessBench, PRM800K
and Math-Shepherd, written as ProcessBench or Math-Shepherd (docs/formats.md)."""

import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, field
from typing import Any

from prmkit.data.jsonl import DataError, iter_input, write_records

__all__ = ["STEP_READERS", "STEP_WRITERS", "StepRecord", "prm800k_step", "prm800k_trajectory", "read_math_shepherd",
           "read_prm800k", "read_processbench", "read_step_records", "shepherd_steps", "write_math_shepherd",
           "write_processbench"]

SHEPHERD_TAG = "ки"


@dataclass
class StepRecord:
    """A solution split into steps with the index of its first wrong step (`first_error`, -1 = every step right)."""

    id: str
    problem: str
    steps: list[str]
    first_error: int
    final_answer_correct: bool | None = None
    problem_id: str = ""
    gold_answer: str | None = None
    answer: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    def to_processbench(self) -> dict[str, Any]:
        """The ProcessBench record (`label` = first_error) with prmkit's extra fields after it."""
        d = asdict(self)
        head = {"id": d.pop("id"), "problem": d.pop("problem"), "steps": d.pop("steps")}
        return head | {"label": d.pop("first_error")} | d


def _check(path: str | os.PathLike[str], lineno: int, ok: bool, what: str) -> None:
    if not ok:
        raise DataError(f"{path}:{lineno}: {what}")


def read_processbench(path: str | os.PathLike[str]) -> Iterator[StepRecord]:
    """ProcessBench lines; `label` is already the first error; other keys go to `meta`."""
    known = {"id", "problem", "steps", "label", "final_answer_correct", "problem_id", "gold_answer", "answer", "meta"}
    for k, (lineno, obj) in enumerate(iter_input(path)):
        steps, label = obj.get("steps"), obj.get("label")
        _check(path, lineno, isinstance(obj.get("problem"), str), "field 'problem' missing or not a string")
        _check(path, lineno, isinstance(steps, list) and all(isinstance(s, str) for s in steps),
               "field 'steps' must be a list of strings")
        _check(path, lineno, isinstance(label, int) and not isinstance(label, bool) and -1 <= label < len(steps),
               f"field 'label' must be -1 or a step index below {len(steps)}, got {label!r}")
        meta = dict(obj.get("meta") or {}) | {key: v for key, v in obj.items() if key not in known}
        yield StepRecord(str(obj.get("id", k)), obj["problem"], steps, label, obj.get("final_answer_correct"),
                         str(obj.get("problem_id", "")), obj.get("gold_answer"), obj.get("answer"), meta)


def prm800k_step(step: dict[str, Any]) -> tuple[str, int | None]:
    """(text, rating) of the completion that the trajectory continued with (or the human one, or the first)."""
    chosen = step.get("chosen_completion")
    if chosen is None and step.get("human_completion"):
        return step["human_completion"]["text"], 1
    c = (step.get("completions") or [])[0 if chosen is None else chosen]
    return c["text"], c.get("rating")


def prm800k_trajectory(path: str | os.PathLike[str], lineno: int, obj: dict[str, Any]
                       ) -> tuple[dict[str, Any], list[str], list[int | None]]:
    """(question, step texts, ratings) of a PRM800K line's rated trajectory (`prm800k_step`); DataError at file:line."""
    question, steps = obj.get("question"), (obj.get("label") or {}).get("steps")
    _check(path, lineno, isinstance(question, dict) and isinstance(question.get("problem"), str),
           "field 'question.problem' missing")
    _check(path, lineno, isinstance(steps, list) and bool(steps), "field 'label.steps' missing or empty")
    try:
        texts, ratings = zip(*(prm800k_step(s) for s in steps), strict=True)
    except (IndexError, KeyError, TypeError) as e:
        raise DataError(f"{path}:{lineno}: malformed label.steps ({e})") from None
    return question, list(texts), list(ratings)


def read_prm800k(path: str | os.PathLike[str]) -> Iterator[StepRecord]:
    """PRM800K lines; the first error is the first step rated -1."""
    for k, (lineno, obj) in enumerate(iter_input(path)):
        question, texts, ratings = prm800k_trajectory(path, lineno, obj)
        first = next((i for i, r in enumerate(ratings) if r == -1), -1)
        meta = {"ratings": ratings, "finish_reason": obj["label"].get("finish_reason")}
        yield StepRecord(f"prm800k-{k}", question["problem"], texts, first, None, f"prm800k-{k}",
                         question.get("ground_truth_answer"), question.get("pre_generated_answer"), meta)


def shepherd_steps(path: str | os.PathLike[str], lineno: int, obj: dict[str, Any]) -> tuple[str, list[str], list[str]]:
    """(question, steps, +/- tag of each step) of a Math-Shepherd line `{input, label}`: steps end in ` ки`, and
    `label` is the same text with `+` or `-` in place of each `ки`. "Step 1:" starts the first step."""
    text, tagged = obj.get("input"), obj.get("label")
    _check(path, lineno, isinstance(text, str) and isinstance(tagged, str), "fields 'input', 'label' must be text")
    chunks = text.split(SHEPHERD_TAG)
    _check(path, lineno, len(chunks) > 1, f"no step marker '{SHEPHERD_TAG}' in 'input'")
    tags, pos = [], 0
    for chunk in chunks[:-1]:
        pos += len(chunk)
        _check(path, lineno, tagged[pos:pos + 1] in ("+", "-"), f"'label' has no +/- at character {pos}")
        tags.append(tagged[pos])
        pos += 1
    question, _, first_step = chunks[0].partition("Step 1:")
    steps = ["Step 1:" + first_step if first_step else chunks[0], *chunks[1:-1]]
    return (question.strip() if first_step else ""), [s.strip() for s in steps], tags


def read_math_shepherd(path: str | os.PathLike[str]) -> Iterator[StepRecord]:
    """Math-Shepherd lines; the first error is the first `-` step ("Step 1:" is index 0)."""
    for k, (lineno, obj) in enumerate(iter_input(path)):
        question, steps, tags = shepherd_steps(path, lineno, obj)
        first = next((i for i, t in enumerate(tags) if t == "-"), -1)
        yield StepRecord(f"math-shepherd-{k}", question, steps, first, None, f"math-shepherd-{k}", None, None,
                         {"task": obj.get("task")})


def write_processbench(path: str | os.PathLike[str], records: Iterable[StepRecord]) -> int:
    return write_records(path, (r.to_processbench() for r in records))


def write_math_shepherd(path: str | os.PathLike[str], records: Iterable[StepRecord]) -> int:
    """Steps before the first error `+`, the first error and every later step `-`."""
    def line(r: StepRecord) -> dict[str, str]:
        body = [f"Step {i + 1}: {s} " for i, s in enumerate(r.steps)]
        tags = ["+" if r.first_error < 0 or i < r.first_error else "-" for i in range(len(r.steps))]
        return {"input": r.problem + " " + "\n".join(b + SHEPHERD_TAG for b in body),
                "label": r.problem + " " + "\n".join(b + t for b, t in zip(body, tags, strict=True))}
    return write_records(path, (line(r) for r in records))


STEP_READERS: dict[str, Callable[[str | os.PathLike[str]], Iterator[StepRecord]]] = {
    "processbench": read_processbench, "prm800k": read_prm800k, "math-shepherd": read_math_shepherd}
STEP_WRITERS: dict[str, Callable[[str | os.PathLike[str], Iterable[StepRecord]], int]] = {
    "processbench": write_processbench, "math-shepherd": write_math_shepherd}


def read_step_records(path: str | os.PathLike[str], fmt: str = "processbench") -> list[StepRecord]:
    if fmt not in STEP_READERS:
        raise ValueError(f"unknown step-level format {fmt!r}; choose from {sorted(STEP_READERS)}")
    if not os.path.isfile(path):
        raise FileNotFoundError(f"benchmark file not found: {path}")
    records = list(STEP_READERS[fmt](path))
    if not records:
        raise DataError(f"benchmark {path}: no records (the file is empty): give a step-level benchmark in the "
                        f"{fmt} format, e.g. the --output of `prmkit data corrupt`")
    return records
