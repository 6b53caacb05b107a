"""One writer per output: an exclusive, re-entrant `flock` on `<resolved path>.lock` holding the holder's pid; a
second process gets `OutputBusy` at once. A killed run's lock file is removed by the next run locking in its folder."""

import fcntl
import os
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

__all__ = ["OutputBusy", "clean_stale_locks", "lock_path", "output_lock"]

_HELD: dict[str, tuple[int, int]] = {}  # resolved lock path -> (fd, depth) held by this process


class OutputBusy(RuntimeError):
    """Another live process holds the output's lock."""


def lock_path(path: str | os.PathLike[str]) -> Path:
    """`<path>.lock` beside the file that `path` resolves to: every name of one file shares one lock."""
    return Path(f"{Path(path).expanduser().resolve()}.lock")


def _holder(fd: int) -> str:
    try:
        return os.pread(fd, 64, 0).decode("ascii", "replace").strip() or "unknown"
    except OSError:
        return "unknown"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's live process
        return True
    return True


def _dead_pid(fd: int) -> bool:
    """Whether the lock file open as `fd` holds a pid (all it holds) of a process that is gone."""
    text = os.pread(fd, 64, 0).decode("ascii", "replace")
    return bool(re.fullmatch(r"\d+\n?", text)) and not _alive(int(text))


def clean_stale_locks(folder: str | os.PathLike[str], keep: Path | None = None) -> None:
    """Remove the `.lock` files of `folder` (but `keep`) that no one holds and that hold a dead process's pid only."""
    for lock in Path(folder).glob("*.lock"):
        if lock == keep or str(lock.resolve()) in _HELD:
            continue
        with suppress(OSError):
            fd = os.open(lock, os.O_RDWR | os.O_NOFOLLOW)
            try:
                if not _dead_pid(fd):
                    continue
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    continue  # taken over right now: its new holder's
                if os.fstat(fd).st_ino == os.stat(lock).st_ino and _dead_pid(fd):
                    os.unlink(lock)
            finally:
                os.close(fd)


def _acquire(lock: Path) -> int:
    for attempt in range(50):
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pid = _holder(fd)
            os.close(fd)
            if pid.isdigit() and not _alive(int(pid)) and attempt < 49:
                time.sleep(0.01)  # a cleaner of stale locks holds it for a moment
                continue
            raise OutputBusy(f"{str(lock)[:-5]} is being written by another process (pid {pid}); wait for it "
                             "to finish or choose another output") from None
        try:
            same = os.fstat(fd).st_ino == os.stat(lock).st_ino
        except FileNotFoundError:
            same = False
        if same:  # else the holder removed the file between our open and our lock: take the new one
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
            return fd
        os.close(fd)
    raise OutputBusy(f"{str(lock)[:-5]}: its lock could not be taken; try again")


@contextmanager
def output_lock(path: str | os.PathLike[str]) -> Iterator[None]:
    """Hold the exclusive lock of `path` for the `with` block (re-entrant in one process)."""
    lock = lock_path(path)
    lock.parent.mkdir(parents=True, exist_ok=True)
    key = str(lock.resolve())
    if key in _HELD:
        fd, depth = _HELD[key]
        _HELD[key] = (fd, depth + 1)
    else:
        _HELD[key] = (_acquire(lock), 1)
        clean_stale_locks(lock.parent, keep=lock)
    try:
        yield
    finally:
        fd, depth = _HELD[key]
        if depth > 1:
            _HELD[key] = (fd, depth - 1)
        else:
            del _HELD[key]
            with suppress(FileNotFoundError):
                os.unlink(lock)
            os.close(fd)  # closing the last descriptor releases the flock
