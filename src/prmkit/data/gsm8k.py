"""Readers for GSM8K (Cobbe et al., 2021) and its verifier candidate pools: steps are the solution's lines without
`<<a*b=c>>` annotations; the final line (`#### x`, `A: x`) is the answer, not a step."""

import os
import re
from collections.abc import Iterator

from prmkit.data.jsonl import DataError, iter_input
from prmkit.data.records import Pool, Problem, Trace

__all__ = ["CANDIDATE_SOURCES", "read_gsm8k", "read_gsm8k_candidates", "split_solution", "strip_annotations"]

CANDIDATE_SOURCES = ("6b_finetuning", "6b_verification", "175b_finetuning", "175b_verification")
_ANNOTATION = re.compile(r"<<[^<>]*>>")
_FINAL = re.compile(r"^\s*(?:####|A:)\s*(.*?)\s*$")


def strip_annotations(text: str) -> str:
    """`16 - 3 = <<16-3=13>>13` -> `16 - 3 = 13`."""
    return _ANNOTATION.sub("", text)


def split_solution(text: str) -> tuple[list[str], str | None]:
    """Split a GSM8K solution into (steps, final answer); the answer is None when no final line exists."""
    lines = [ln.strip() for ln in strip_annotations(text).split("\n") if ln.strip()]
    if lines and (m := _FINAL.match(lines[-1])):
        return lines[:-1], m.group(1).replace(",", "")
    return lines, None


def _field(path: str | os.PathLike[str], lineno: int, obj: dict, name: str) -> str:
    value = obj.get(name)
    if not isinstance(value, str):
        raise DataError(f"{path}:{lineno}: field '{name}' missing or not a string")
    return value


def read_gsm8k(path: str | os.PathLike[str], split: str = "train") -> Iterator[Pool]:
    """`{question, answer}` lines -> a Pool per problem whose one trace is the reference solution."""
    for k, (lineno, obj) in enumerate(iter_input(path)):
        question, answer_text = _field(path, lineno, obj, "question"), _field(path, lineno, obj, "answer")
        steps, answer = split_solution(answer_text)
        if answer is None:
            raise DataError(f"{path}:{lineno}: field 'answer' has no final '#### x' line")
        pid = f"gsm8k-{split}-{k}"
        problem = Problem(pid, question, answer, "\n".join(steps), "math", {"source": "gsm8k", "line": lineno})
        yield Pool(problem, [Trace(f"{pid}/reference", pid, steps, answer, True, "reference")], f"{path}:{lineno}")


def read_gsm8k_candidates(path: str | os.PathLike[str]) -> Iterator[Pool]:
    """`candidates_dev.jsonl` -> a Pool per problem with its four model-written traces and `is_correct`."""
    for k, (lineno, obj) in enumerate(iter_input(path)):
        question = _field(path, lineno, obj, "question")
        ref_steps, ref_answer = split_solution(_field(path, lineno, obj, "ground_truth"))
        if ref_answer is None:
            raise DataError(f"{path}:{lineno}: field 'ground_truth' has no final 'A: x' line")
        pid = f"gsm8k-dev-{k}"
        problem = Problem(pid, question, ref_answer, "\n".join(ref_steps), "math", {"source": "gsm8k-candidates"})
        traces = []
        for source in CANDIDATE_SOURCES:
            entry = obj.get(source)
            if not isinstance(entry, dict) or not isinstance(entry.get("solution"), str):
                raise DataError(f"{path}:{lineno}: field '{source}' must be {{solution, is_correct}}")
            if not isinstance(entry.get("is_correct"), bool):
                raise DataError(f"{path}:{lineno}: field '{source}.is_correct' must be a boolean")
            steps, answer = split_solution(entry["solution"])
            traces.append(Trace(f"{pid}/{source}", pid, steps, answer, entry["is_correct"], source))
        yield Pool(problem, traces, f"{path}:{lineno}")
