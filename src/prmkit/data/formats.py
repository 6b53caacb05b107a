"""Read pools from any supported file, the format detected from the first record's keys (docs/formats.md); the
name `demo` gives the built-in demo pools."""

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import partial

from prmkit.data.gsm8k import read_gsm8k, read_gsm8k_candidates
from prmkit.data.jsonl import DataError, iter_input, parsed_lines
from prmkit.data.labeled import LABELED_READERS, LABELED_SIGNATURES, detect_labeled_format, iter_records
from prmkit.data.records import Pool, Problem
from prmkit.data.settings import parse_range

__all__ = ["POOL_READERS", "detect_format", "keep_sources", "read_chosen_pools", "read_pools", "select_range",
           "unique_pools"]


def _read_pool_lines(path: str | os.PathLike[str], to_pool: Callable[[dict], Pool]) -> Iterator[Pool]:
    """Every record of `path` as a Pool (`to_pool`), its origin `file:line`."""
    for lineno, pool in parsed_lines(path, to_pool, iter_input):
        pool.origin = f"{path}:{lineno}"
        yield pool


POOL_READERS: dict[str, Callable[[str | os.PathLike[str]], Iterator[Pool]]] = {
    "pool": partial(_read_pool_lines, to_pool=Pool.from_dict),
    # a Problem file (`prmkit data bench`) as pools without traces
    "problem": partial(_read_pool_lines, to_pool=lambda obj: Pool(Problem.from_dict(obj), [])),
    "gsm8k-candidates": read_gsm8k_candidates,
    "gsm8k": read_gsm8k,
    **{name: (lambda path, read=read: (pool for pool, _ in read(path))) for name, read in LABELED_READERS.items()},
}
_SIGNATURES: list[tuple[str, set[str]]] = [  # checked in this order
    ("pool", {"problem", "traces"}), ("problem", {"id", "question", "answer", "domain"}),
    ("gsm8k-candidates", {"question", "ground_truth", "6b_finetuning"}), *LABELED_SIGNATURES,
    ("gsm8k", {"question", "answer"})]


def detect_format(path: str | os.PathLike[str]) -> str:
    if os.path.isdir(path):
        raise DataError(f"{path}: is a directory, expected a pool file (JSONL)")
    if (name := detect_labeled_format(path, _SIGNATURES)) is None:
        where, obj = next(iter_records(path))
        raise DataError(f"{where}: unknown record format with keys {sorted(obj)}; "
                        f"expected one of {[n for n, _ in _SIGNATURES]}")
    return name


# the end of the help of an --input that takes pools (`read_pools` reads the name `demo`)
DEMO_INPUT = ("; or `demo`: the built-in demo pools (20 small arithmetic problems, each with one right trace and "
              "three with a seeded slip; nothing to download)")


def read_pools(path: str | os.PathLike[str], fmt: str = "auto", allow_duplicates: bool = False) -> Iterator[Pool]:
    """The pools of `path` (format `fmt`, or detected), checked: ids unique (see `unique_pools`), not empty."""
    if str(path) == "demo" and not os.path.exists(path):
        from prmkit.data.demo_pools import demo_pools

        return iter(demo_pools())
    name = detect_format(path) if fmt == "auto" else fmt
    if name not in POOL_READERS:
        raise ValueError(f"unknown format {name!r}; choose from {sorted(POOL_READERS)}")
    return unique_pools(POOL_READERS[name](path), allow_duplicates, str(path))


def unique_pools(pools: Iterable[Pool], allow_duplicates: bool = False, source: str = "input") -> Iterator[Pool]:
    """`pools` checked: a repeated problem id is a DataError (or dropped with `allow_duplicates`), a trace id of two
    problems is a DataError, and so is no pool at all."""
    seen: dict[str, str] = {}
    traces: dict[str, str] = {}
    for pool in pools:
        pid = pool.problem.id
        if pid in seen:
            if allow_duplicates:
                continue
            raise DataError(f"{pool.origin or source}: problem id {pid!r} repeats {seen[pid] or 'an earlier pool'}; "
                            "remove the copy or pass --allow-duplicates to keep the first")
        seen[pid] = pool.origin
        for t in pool.traces:
            if t.id in traces:
                raise DataError(f"{pool.origin or source}: trace id {t.id!r} of problem {pid!r} is also a trace of "
                                f"problem {traces[t.id]}; trace ids must be unique in a file")
            traces[t.id] = f"{pid!r} ({pool.origin})" if pool.origin else repr(pid)
        yield pool
    if not seen:
        raise DataError(f"{source}: no pools (the input is empty)")


def keep_sources(pools: Iterable[Pool], prefixes: Sequence[str]) -> list[Pool]:
    """The pools with only the traces whose `source` starts with one of `prefixes`, empty pools dropped; none kept is
    a DataError naming the sources there are."""
    pools, wanted = list(pools), tuple(prefixes)
    kept = [Pool(p.problem, [t for t in p.traces if t.source.startswith(wanted)], p.origin) for p in pools]
    kept = [p for p in kept if p.traces]
    if not kept:
        present = sorted({t.source for p in pools for t in p.traces})
        raise DataError(f"no trace has a source starting with {', '.join(map(repr, wanted))}; the sources are "
                        f"{', '.join(map(repr, present)) or 'none'}")
    return kept


def select_range(pools: list[Pool], text: str | None) -> list[Pool]:
    """Problems by index in file order ('0:500' = the first 500); a range that selects none is an error."""
    chosen = pools[parse_range(text)]
    if pools and not chosen:
        raise ValueError(f"--problems-range {text}: selects none of the {len(pools)} problems (indices 0 to "
                         f"{len(pools) - 1})")
    return chosen


def read_chosen_pools(path: str | os.PathLike[str], problems_range: str | None = None,
                      sources: Sequence[str] | None = None, allow_duplicates: bool = False) -> list[Pool]:
    """The pools of `path` (`read_pools`) that a verb works on: the problems of `problems_range` (`select_range`),
    with only the traces of `sources` (`keep_sources`) when given."""
    pools = select_range(list(read_pools(path, allow_duplicates=allow_duplicates)), problems_range)
    return keep_sources(pools, sources) if sources else pools
