"""Read pools from any supported file, detecting the format from the first record's keys.

| format              | keys of a line                                   | reader                   |
|---------------------|--------------------------------------------------|--------------------------|
| `pool`              | problem, traces                                  | `Pool.from_dict`         |
| `gsm8k-candidates`  | question, ground_truth, 6b_finetuning, ...       | `read_gsm8k_candidates`  |
| `gsm8k`             | question, answer (with a final `#### x`)         | `read_gsm8k`             |
| `trl`               | prompt, completions, labels                      | `read_trl`               |

The name `demo` (instead of a path) gives the built-in demo pools (`prmkit.data.demo_pools`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator

from prmkit.data.gsm8k import read_gsm8k, read_gsm8k_candidates
from prmkit.data.jsonl import DataError, iter_json, read_records
from prmkit.data.records import Pool
from prmkit.data.trl import read_trl

__all__ = ["POOL_READERS", "detect_format", "read_pools"]

POOL_READERS: dict[str, Callable[[str | os.PathLike[str]], Iterator[Pool]]] = {
    "pool": lambda path: read_records(path, Pool.from_dict),
    "gsm8k-candidates": read_gsm8k_candidates,
    "gsm8k": read_gsm8k,
    "trl": lambda path: (pool for pool, _ in read_trl(path)),
}
_SIGNATURES: list[tuple[str, set[str]]] = [
    ("pool", {"problem", "traces"}),
    ("gsm8k-candidates", {"question", "ground_truth", "6b_finetuning"}),
    ("trl", {"prompt", "completions", "labels"}),
    ("gsm8k", {"question", "answer"}),
]


def detect_format(path: str | os.PathLike[str]) -> str:
    if not os.path.isfile(path):
        raise FileNotFoundError(f"input file not found: {path}")
    for lineno, obj in iter_json(path):
        for name, keys in _SIGNATURES:
            if keys <= obj.keys():
                return name
        raise DataError(f"{path}:{lineno}: unknown record format with keys {sorted(obj)}; "
                        f"expected one of {[n for n, _ in _SIGNATURES]}")
    raise DataError(f"{path}: no records")


def read_pools(path: str | os.PathLike[str], fmt: str = "auto") -> Iterator[Pool]:
    if str(path) == "demo" and not os.path.exists(path):
        from prmkit.data.demo_pools import demo_pools

        return iter(demo_pools())
    name = detect_format(path) if fmt == "auto" else fmt
    if name not in POOL_READERS:
        raise ValueError(f"unknown format {name!r}; choose from {sorted(POOL_READERS)}")
    return POOL_READERS[name](path)
