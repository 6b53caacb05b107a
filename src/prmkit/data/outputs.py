"""Output paths checked before any work (`claim_outputs`: the output rule of every verb) and written whole or not at
all (`atomic_path`, `atomic_dir`)."""

import os
import shutil
import tempfile
from collections.abc import Collection, Iterable, Iterator, Mapping
from contextlib import ExitStack, contextmanager, suppress
from pathlib import Path
from typing import Any

from prmkit.data.locks import output_lock
from prmkit.data.settings import config_fields, config_values

__all__ = ["OutputPathError", "atomic_dir", "atomic_path", "check_output_path", "claim_outputs", "claims",
           "follow_umask", "pyplot", "same_file", "save_figure"]

PathLike = str | os.PathLike[str]


class OutputPathError(ValueError):
    """An output path that cannot be written (under a file, a directory in the way, no permission)."""


def follow_umask(path: PathLike) -> None:
    """Give `path` and everything under it the modes the umask gives a plain `open` or `mkdir` (safetensors and
    mkstemp leave files 0600)."""
    mask = os.umask(0o022)
    os.umask(mask)  # the umask is read by setting it and setting it back
    root = Path(path)
    for item in [root, *root.rglob("*")] if root.is_dir() else [root]:
        if item.is_symlink():
            continue
        executable = item.is_dir() or item.stat().st_mode & 0o100
        os.chmod(item, (0o777 if executable else 0o666) & ~mask)


def check_output_path(path: str | os.PathLike[str], directory: bool = False, what: str = "output") -> Path:
    """Raise OutputPathError unless `path` can be created (as a file, or a directory when `directory`): its nearest
    existing ancestor must be a writable directory. Creates nothing."""
    target = Path(path)
    if target.exists():
        if directory and not target.is_dir():
            raise OutputPathError(f"{what} {target}: exists and is not a directory")
        if not directory and target.is_dir():
            raise OutputPathError(f"{what} {target}: is a directory, expected a file path")
        if not os.access(target, os.W_OK):
            raise OutputPathError(f"{what} {target}: not writable")
    parent = target.absolute().parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise OutputPathError(f"{what} {target}: cannot be created, {_shown(parent, target)} is a file")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputPathError(f"{what} {target}: folder {_shown(parent, target)} is not writable")
    return target


def same_file(a: PathLike, b: PathLike) -> bool:
    """Whether two paths name one file: equal once resolved (symlinks followed), or one inode (hard links)."""
    pa, pb = Path(a).expanduser(), Path(b).expanduser()
    if pa.resolve() == pb.resolve():
        return True
    try:
        return os.path.samefile(pa, pb)
    except OSError:  # one of them does not exist yet
        return False


def _paths(value: PathLike | Iterable[PathLike] | None) -> list[Path]:
    """The file paths of an input setting (a path, a list, NAME=PATH items); None, "" and non-files left out."""
    texts = [str(item) for item in ([value] if isinstance(value, str | os.PathLike) else value or [])]
    texts = [t.split("=", 1)[1] if not Path(t).exists() and "=" in t else t for t in texts]  # NAME=PATH
    return [Path(t) for t in texts if t and Path(t).exists()]


@contextmanager
def claim_outputs(outputs: Mapping[str, PathLike | None],
                  inputs: Mapping[str, PathLike | Iterable[PathLike] | None] | None = None,
                  directories: Collection[str] = ()) -> Iterator[None]:
    """For the `with` block, hold each output's lock, after checking that each can be written and that none is the
    same file (symlinks, hard links) as an input or another output. Keys are the settings' names as the user gave them
    ("--output"); an input may be a list or NAME=PATH items; the outputs named in `directories` are folders."""
    outs = [(name, Path(path)) for name, path in outputs.items() if path]
    ins = [(name, path) for name, value in (inputs or {}).items() for path in _paths(value)]
    for name, path in outs:
        check_output_path(path, directory=name in directories, what=name)
    for k, (name, path) in enumerate(outs):
        for other, source in ins:
            if same_file(path, source):
                raise OutputPathError(f"{name} {path} is the same file as the input {other} {source}: an input is "
                                      f"never overwritten; choose another {name}")
        for other, earlier in outs[:k]:
            if same_file(path, earlier):
                raise OutputPathError(f"{name} {path} and {other} {earlier} are the same file: each output needs "
                                      "its own path")
    with ExitStack() as held:
        for _, path in outs:
            held.enter_context(output_lock(path))
        yield


def claims(*configs: Any, outputs: Mapping[str, PathLike | None] | None = None,
           inputs: Mapping[str, Any] | None = None, directories: Collection[str] = ()) -> dict[str, Any]:
    """`claim_outputs`' arguments from a verb's configs: each field whose metadata `role` is "output" or "output-dir"
    (a folder) is an output, "input" an input, by its flag; `outputs`, `inputs`, `directories`: the paths no field
    holds."""
    found: dict[str, dict[str, Any]] = {"output": {}, "output-dir": {}, "input": {}}
    for cfg in configs:
        values = config_values(cfg)
        for setting in config_fields(type(cfg)):
            if role := setting.field.metadata.get("role"):
                found[role]["--" + setting.name.replace("_", "-")] = values[setting.name]
    return {"outputs": found["output"] | found["output-dir"] | dict(outputs or {}),
            "inputs": found["input"] | dict(inputs or {}), "directories": (*found["output-dir"], *directories)}


def _shown(ancestor: Path, target: Path) -> str:
    """`ancestor` as the user wrote it (relative when `target` was)."""
    with suppress(ValueError):
        if not target.is_absolute():
            return str(ancestor.relative_to(Path.cwd()))
    return str(ancestor)


@contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path beside `path`; on success it is fsynced and renamed onto `path`, on failure removed."""
    target = Path(path).expanduser().resolve()  # a symlinked name: the file it names is replaced, not the link
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    os.close(fd)
    follow_umask(tmp)  # mkstemp's file is private (0600)
    try:
        yield Path(tmp)
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    finally:
        with suppress(FileNotFoundError):
            os.unlink(tmp)


@contextmanager
def atomic_dir(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a fresh temporary directory beside `path`; on success it replaces `path` (an older directory there
    is moved aside first and removed after), on failure it is removed and `path` is untouched."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp"))
    old: Path | None = None
    try:
        yield tmp
        follow_umask(tmp)  # mkdtemp's folder and safetensors' files are private (0700, 0600); outputs follow the umask
        if target.exists():
            old = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}.", suffix=".old"))
            os.replace(target, old / "previous")
        os.replace(tmp, target)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)


def pyplot() -> Any:
    """matplotlib's pyplot on the Agg backend, imported on first use."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig: Any, path: str | os.PathLike[str]) -> None:
    """Save `fig` as PNG atomically without version or date metadata (same figure, same file), then close it."""
    with atomic_path(path) as tmp:
        fig.savefig(tmp, dpi=120, format="png", metadata={"Software": None})
    pyplot().close(fig)
