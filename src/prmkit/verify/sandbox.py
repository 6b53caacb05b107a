"""Run untrusted Python in a subprocess sandbox (the code validator, MCNIG paper sec 3.1); its guarantees and their
limits: docs/generate_verify.md."""

import contextlib
import functools
import itertools
import os
import secrets
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

__all__ = ["SandboxLimits", "SandboxResult", "isolation", "run_sandboxed"]

# uids for sandboxed runs as root: far above login users (1000+) and the usual sub-uid ranges (100000 + 65536 k)
SANDBOX_UIDS = range(2_000_000_000, 2_000_065_536)
_next_uid = itertools.count((os.getpid() * 4099) % len(SANDBOX_UIDS))  # per process start: few cross-process clashes
_GUARD = Path(__file__).with_name("_sandbox_guard.py")
_NS = ["--net", "--pid", "--fork", "--kill-child"]
# strongest first; `--mount-proc` gives the PID namespace its own /proc (the parent's environ stays unreadable)
_NAMESPACES: dict[str, list[str]] = {
    "netns+pidns+proc": ["unshare", *_NS, "--mount-proc", "--"],
    "netns+pidns": ["unshare", *_NS, "--"],
    "userns+netns+pidns+proc": ["unshare", "--user", "--map-root-user", *_NS, "--mount-proc", "--"],
    "userns+netns+pidns": ["unshare", "--user", "--map-root-user", *_NS, "--"],
    "none": [],
}


@dataclass(frozen=True)
class SandboxLimits:
    """Limits of one sandboxed run."""

    wall_seconds: float = 10.0  # hard wall-clock limit; the whole process group is killed after it
    cpu_seconds: int = 10  # RLIMIT_CPU
    memory_bytes: int = 1 << 30  # RLIMIT_AS (address space)
    max_processes: int = 32  # RLIMIT_NPROC (counted per uid; only effective when not root: see `drop_root`)
    max_file_bytes: int = 1 << 20  # RLIMIT_FSIZE: any file written, including the captured stdout/stderr
    audit_guard: bool = True  # install the audit hook (defence in depth on top of the OS limits)
    drop_root: bool = True  # when running as root, run the code as an unprivileged uid of its own


@dataclass(frozen=True)
class SandboxResult:
    returncode: int | None  # negative: killed by that signal
    timed_out: bool
    stdout: str  # the last 4 KiB
    stderr: str  # the last 4 KiB
    seconds: float
    isolation: str  # which namespace set was used
    completed: bool = False  # the program ran to its end (no exit, crash or kill before it)


@functools.cache
def isolation() -> str:
    """The strongest namespace set `unshare` grants here (probed once); warns once when there is none."""
    for name, prefix in _NAMESPACES.items():
        if not prefix:
            break
        try:
            probe = subprocess.run([*prefix, "true"], capture_output=True, timeout=10, env={"PATH": os.defpath})
        except (OSError, subprocess.TimeoutExpired):
            continue
        if probe.returncode == 0:
            return name
    warnings.warn("prmkit sandbox: `unshare` is not permitted here; code runs WITHOUT network or PID isolation "
                  "(rlimits, process group, temp dir and audit hook still apply)", stacklevel=2)
    return "none"


def _world_executable(path: str) -> bool:
    real = Path(os.path.realpath(path))
    return all(p.stat().st_mode & stat.S_IXOTH for p in [real, *real.parents])


@functools.cache
def _interpreter(drop: bool) -> str:
    """This interpreter, or (when the code runs as an unprivileged uid) one that any user may execute."""
    candidates = [sys.executable, "/usr/bin/python3", "/usr/local/bin/python3"] if drop else [sys.executable]
    for c in candidates:
        if os.path.exists(c) and (not drop or _world_executable(c)):
            return c
    raise RuntimeError("no Python interpreter executable by other users; set SandboxLimits(drop_root=False)")


def _tail(path: Path, n: int = 4096) -> str:
    with open(path, "rb") as fh:
        fh.seek(max(0, path.stat().st_size - n))
        return fh.read().decode("utf-8", "replace")


def _prepare(work: Path, code: str, limits: SandboxLimits, main: bool) -> tuple[list[str], str]:
    """Write the program, the guard and the completion secret into `work`; return (guard argv, secret)."""
    drop = limits.drop_root and os.geteuid() == 0
    (work / "program.py").write_text(code, encoding="utf-8")
    shutil.copy(_GUARD, work / "guard.py")
    done = secrets.token_hex(16)
    (work / "done").write_text(done, encoding="ascii")
    uid = SANDBOX_UIDS[next(_next_uid) % len(SANDBOX_UIDS)] if drop else -1
    if drop:
        for p in (work, work / "program.py", work / "guard.py", work / "done"):
            os.chown(p, uid, uid)
    numbers = (uid, limits.cpu_seconds, limits.memory_bytes, limits.max_processes, limits.max_file_bytes,
               int(limits.audit_guard), int(main))
    return [_interpreter(drop), "-I", "-B", str(work / "guard.py"), str(work), *map(str, numbers)], done


def run_sandboxed(code: str, limits: SandboxLimits | None = None, main: bool = True) -> SandboxResult:
    """Run `code` as `program.py` in a fresh temp dir under `limits`; returns whatever the code does. `main=False`
    runs it with `__name__ != "__main__"`, as HumanEval's harness does: a candidate's own main block does not run."""
    limits = limits or SandboxLimits()
    iso = isolation()
    work = Path(tempfile.mkdtemp(prefix="prmkit-sandbox-")).resolve()
    try:
        argv, done = _prepare(work, code, limits, main)
        env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": str(work), "TMPDIR": str(work)}
        start = time.monotonic()
        with open(work / "stdout", "wb") as out, open(work / "stderr", "wb") as err:
            proc = subprocess.Popen([*_NAMESPACES[iso], *argv], cwd=work, env=env, stdin=subprocess.DEVNULL,
                                    stdout=out, stderr=err, start_new_session=True, close_fds=True)
            try:
                proc.wait(timeout=limits.wall_seconds)
                timed_out = False
            except subprocess.TimeoutExpired:
                timed_out = True
            finally:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        stdout = _tail(work / "stdout")
        completed = not timed_out and proc.returncode == 0 and stdout.endswith(done)
        return SandboxResult(None if timed_out else proc.returncode, timed_out,
                             stdout.removesuffix(done) if completed else stdout, _tail(work / "stderr"),
                             time.monotonic() - start, iso, completed)
    finally:
        shutil.rmtree(work, ignore_errors=True)
