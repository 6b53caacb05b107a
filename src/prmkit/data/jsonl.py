"""JSON lines: strict readers that name `file:line`, an atomic whole-file writer, a crash-safe append-only writer."""

import io
import json
import os
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack
from pathlib import Path
from typing import IO, Any, TypeVar

from prmkit.data.locks import output_lock
from prmkit.data.outputs import atomic_path
from prmkit.data.records import RecordError

__all__ = ["AppendOnlyWriter", "DataError", "iter_input", "iter_json", "open_ledger", "parsed_lines", "read_clock",
           "read_ledger", "read_records", "write_records"]

T = TypeVar("T")


class DataError(ValueError):
    """A malformed input line; the message starts with `file:line`."""


def iter_json(path: str | os.PathLike[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (line number, object) for every non-blank line; raise DataError on invalid JSON or a non-object
    (and on a directory or a file that cannot be read, naming it)."""
    if os.path.isdir(path):
        raise DataError(f"{path}: is a directory, expected a JSONL file")
    if os.path.exists(path) and not os.access(path, os.R_OK):
        raise DataError(f"{path}: cannot be read (permission denied)")
    with open(path, "rb") as fh:
        for lineno, raw in enumerate(fh, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                raise DataError(f"{path}:{lineno}: not UTF-8 text (byte {raw[e.start]:#04x} at column "
                                f"{e.start + 1}); is this a JSONL file?") from None
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as e:
                raise DataError(f"{path}:{lineno}: invalid JSON ({e.msg} at column {e.colno})") from None
            if not isinstance(obj, dict):
                raise DataError(f"{path}:{lineno}: expected a JSON object, got {type(obj).__name__}")
            yield lineno, obj


def iter_input(path: str | os.PathLike[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    """(number, object) of a record file: JSON lines (`iter_json`), a `.json` file of one object or a list (numbered
    from 1), or JSON lines in a file named `.json`."""
    if Path(path).suffix != ".json":
        yield from iter_json(path)
        return
    if os.path.isdir(path):
        raise DataError(f"{path}: is a directory, expected a JSON file")
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        if getattr(e, "msg", None) == "Extra data":  # a second document after the first: JSON lines
            yield from iter_json(path)
            return
        raise DataError(f"{path}: invalid JSON ({e})") from None
    for k, obj in enumerate(data if isinstance(data, list) else [data], start=1):
        if not isinstance(obj, dict):
            raise DataError(f"{path}:record {k}: expected a JSON object, got {type(obj).__name__}")
        yield k, obj


def parsed_lines(path: str | os.PathLike[str], parse: Callable[[Any], T],
                 records: Callable[[str | os.PathLike[str]], Iterator[tuple[int, dict[str, Any]]]] = iter_json
                 ) -> Iterator[tuple[int, T]]:
    """(line number, `parse(object)`) of every record of `records(path)`; a refused one is a DataError at file:line."""
    for lineno, obj in records(path):
        try:
            record = parse(obj)
        except (RecordError, KeyError, TypeError, ValueError) as e:
            raise DataError(f"{path}:{lineno}: {e}") from None
        yield lineno, record


def read_records(path: str | os.PathLike[str], parse: Callable[[Any], T]) -> Iterator[T]:
    """Parse every line with `parse` (e.g. `Trace.from_dict`); a bad record raises DataError with file:line."""
    return (record for _, record in parsed_lines(path, parse))


def write_records(path: str | os.PathLike[str], records: Any) -> int:
    """Write records (with `to_dict`, or dicts) as JSON lines, replacing the file atomically; returns the count."""
    n = 0
    with output_lock(path), atomic_path(path) as tmp, open(tmp, "w", encoding="utf-8") as fh:
        for r in records:
            fh.write(json.dumps(r.to_dict() if hasattr(r, "to_dict") else r, ensure_ascii=False) + "\n")
            n += 1
    return n


def _cut_torn_line(path: Path, chunk: int = 1 << 16) -> None:
    """Cut a last line that a crash left without its newline, reading back from the end only."""
    with open(path, "rb+") as fh:
        end = fh.seek(0, os.SEEK_END)
        pos = end
        while pos > 0:
            start = max(0, pos - chunk)
            fh.seek(start)
            block = fh.read(pos - start)
            if pos == end and block.endswith(b"\n"):
                return
            if (nl := block.rfind(b"\n")) >= 0:
                fh.truncate(start + nl + 1)
                return
            pos = start
        if end:
            fh.truncate(0)


class AppendOnlyWriter(AbstractContextManager):
    """Append records to a JSONL file, skipping keys already written (`key`, default the "id" field): each write
    fsynced, a torn last line cut on reopen, the output's lock held while open."""

    def __init__(self, path: str | os.PathLike[str], key: Callable[[dict[str, Any]], str] | None = None):
        self.path = Path(path)
        self.key = key or (lambda d: str(d["id"]))
        self.done: set[str] = set()
        with ExitStack() as held:  # the lock and the file, released by close() (or now, on an error)
            held.enter_context(output_lock(self.path))  # makes the folder
            if self.path.exists():
                _cut_torn_line(self.path)
                self.done = {self.key(obj) for _, obj in iter_json(self.path)}
            self._fh = held.enter_context(open(self.path, "a", encoding="utf-8"))
            self._held = held.pop_all()

    def write(self, record: Any) -> bool:
        """Append one record unless its key is already written; return whether it was written."""
        obj = record.to_dict() if hasattr(record, "to_dict") else record
        k = self.key(obj)
        if k in self.done:
            return False
        self._fh.write(json.dumps(obj, ensure_ascii=False) + "\n")
        self._fh.flush()
        os.fsync(self._fh.fileno())
        self.done.add(k)
        return True

    def close(self) -> None:
        self._held.close()

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_ledger(path: str | os.PathLike[str]) -> IO[str]:
    """A JSON-lines ledger opened to append, a torn last line ended first so the next line stands alone."""
    file = open(path, "a+b")  # noqa: SIM115 (the caller closes it)
    if file.tell():  # appending: the position is the end
        file.seek(-1, os.SEEK_END)
        if file.read(1) != b"\n":
            file.write(b"\n")
    return io.TextIOWrapper(file, encoding="utf-8")


def read_ledger(path: str | os.PathLike[str]) -> Iterator[dict[str, Any]]:
    """The entries of an `open_ledger` file in order (none without a file); torn lines skipped."""
    if not Path(path).is_file():
        return
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        try:
            yield json.loads(line)
        except json.JSONDecodeError:
            continue


def read_clock(path: str | os.PathLike[str]) -> dict[str, dict[str, float]]:
    """{method: {trace id: seconds}} from a seconds ledger: each call's seconds shared evenly by its traces, summed
    since the method's last reset; a torn line is skipped."""
    out: dict[str, dict[str, float]] = {}
    for entry in read_ledger(path):
        if entry.get("reset"):
            for m in entry["methods"]:
                out.pop(m, None)
        if not entry.get("traces"):
            continue
        share = entry["seconds"] / len(entry["traces"])
        for m in entry["methods"]:
            got = out.setdefault(m, {})
            for t in entry["traces"]:
                got[t] = got.get(t, 0.0) + share
    return out
