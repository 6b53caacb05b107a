"""What a reward function reads from one TRL completion: its text cut at the domain's stop strings, its `[STEP]`
steps, and its problem (a `Problem`'s JSON in the dataset column `problem`)."""

import json
from typing import Any

from prmkit.data.records import Problem
from prmkit.domains import STOP, split_steps
from prmkit.generate.backends.base import split_at_stop

__all__ = ["completion_steps", "completion_text", "problem_column", "read_problem"]


def completion_text(completion: str | list[dict[str, Any]], domain: str = "math") -> str:
    """The text of a completion (a string, or the concatenated contents of a message list), cut at `STOP[domain]`."""
    text = completion if isinstance(completion, str) else "".join(str(m.get("content", "")) for m in completion)
    return split_at_stop(text, STOP.get(domain, ()))[0]


def completion_steps(completion: str | list[dict[str, Any]], domain: str = "math") -> list[str]:
    """The steps r_1..r_N of a completion (non-empty pieces between `[STEP]` delimiters)."""
    return split_steps(completion_text(completion, domain))


def problem_column(problem: Problem) -> str:
    """The value of the dataset column `problem` for one problem (JSON, so Arrow keeps any `meta`)."""
    return json.dumps(problem.to_dict(), ensure_ascii=False)


def read_problem(value: str | dict[str, Any]) -> Problem:
    """The `Problem` of a dataset row's `problem` column (JSON text or an already parsed mapping)."""
    return Problem.from_dict(json.loads(value) if isinstance(value, str) else value)
