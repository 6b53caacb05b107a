"""The hostile corpus: every case must fail with a reason, within its time limit, leaving no process or file.

Real subprocess sandbox, no mocks. Each case runs twice: with the audit hook (the default) and with the OS
layer alone (rlimits, process group, namespaces, an unprivileged uid), where the platform provides that layer.
"""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
import threading
import time
from pathlib import Path

import pytest

from prmkit.data.records import Problem
from prmkit.verify.python import verify_python
from prmkit.verify.sandbox import SandboxLimits, isolation

WALL = 2.0
SECRET = "prmkit-test-secret-7f3a"

# name -> (candidate body inside `def f():`, whether the OS layer alone contains it, what it needs)
CASES: dict[str, tuple[str, str]] = {
    "fork_bomb": ("import os\n    while True:\n        os.fork()", "always"),
    "escaped_daemon": (
        "import os, time\n    if os.fork() == 0:\n        os.setsid(); time.sleep(60)\n    return 0",
        "pidns",
    ),
    "infinite_loop": ("while True:\n        pass", "always"),
    "sleep_forever": ("import time\n    time.sleep(60)", "always"),
    "memory_bomb": ("x = bytearray(8 * 1024 ** 3)\n    return len(x)", "always"),
    "memory_creep": ("a = []\n    while True:\n        a.append(' ' * 10 ** 7)", "always"),
    "delete_outside": ("import os\n    os.remove({victim!r})\n    return 1", "nobody"),
    "rmtree_outside": ("import shutil\n    shutil.rmtree({victim_dir!r})\n    return 1", "nobody"),
    "write_outside": ("open({outside!r}, 'w').write('pwned')\n    return 1", "nobody"),
    "socket": (
        "import socket\n    socket.create_connection(('127.0.0.1', {port}), timeout=1).sendall(b'x')\n"
        "    return 1",
        "netns",
    ),
    "env_secret": (
        "import os\n    print(dict(os.environ))\n    return os.environ['PRMKIT_TEST_SECRET']",
        "always",
    ),
    "parent_environ": ("raise ValueError(open('/proc/{parent}/environ').read())", "always"),
    "kill_parent": ("import os, signal\n    os.kill({parent}, signal.SIGKILL)\n    return 1", "nobody"),
    # in a PID namespace its parent is outside (getppid() == 0: the kill hits itself, as init it survives);
    # returning 0 makes the verdict fail either way: the check is that the suite itself survives
    "kill_ppid": ("import os, signal\n    os.kill(os.getppid(), signal.SIGKILL)\n    return 0", "always"),
    "stdout_flood": ("while True:\n        print('x' * 100000)", "always"),
    "stderr_flood": ("import sys\n    while True:\n        sys.stderr.write('y' * 100000)", "always"),
    # leaving with status 0 before `check` finishes is no pass, nor is forging the sandbox's completion secret
    "exit_zero_early": ("import sys\n    sys.exit(0)", "always"),
    "hard_exit_zero": ("import os\n    os._exit(0)", "always"),
    "forge_completion": ("import os, sys\n    sys.stdout.write(open('done').read())\n    os._exit(0)", "always"),
}
TEST = "def check(candidate):\n    assert candidate() == 1\n"


def _os_layer_has(need: str) -> bool:
    iso = isolation()
    return {"always": True, "pidns": iso != "none", "netns": iso != "none", "nobody": os.geteuid() == 0}[need]


def _sandbox_procs(under: Path) -> list[str]:
    """Processes of sandboxes whose work dir lies in `under` (this test's own: another test's sandbox running at
    the same time, e.g. under `pytest -n`, is not a stray of this one)."""
    found = []
    for p in Path("/proc").iterdir():
        try:
            cmd = (p / "cmdline").read_bytes()
        except OSError:
            continue
        if f"{under}/prmkit-sandbox-".encode() in cmd:
            found.append(f"{p.name}: {cmd[:120]!r}")
    return found


@pytest.fixture
def sandbox_tmp(monkeypatch):
    """A temp root of this test's own for the sandboxes' work dirs (traversable by the unprivileged uid)."""
    root = Path(tempfile.mkdtemp(prefix="prmkit-test-sandboxes-"))
    root.chmod(0o755)
    monkeypatch.setattr(tempfile, "tempdir", str(root))
    yield root
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def listener():
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen()
    srv.settimeout(0.2)
    hits: list[int] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
                hits.append(1)
                conn.close()
            except OSError:
                pass

    t = threading.Thread(target=accept, daemon=True)
    t.start()
    yield srv.getsockname()[1], hits
    stop.set()
    t.join()
    srv.close()


@pytest.mark.parametrize("guard", [True, False], ids=["audit-hook", "os-layer-only"])
@pytest.mark.parametrize("name", list(CASES))
def test_hostile_case_is_contained(name, guard, tmp_path, listener, monkeypatch, sandbox_tmp):
    body, need = CASES[name]
    if not guard and not _os_layer_has(need):
        pytest.skip(f"the OS layer alone cannot contain '{name}' here (needs {need})")
    monkeypatch.setenv("PRMKIT_TEST_SECRET", SECRET)
    port, hits = listener
    victim_dir = tmp_path / "victim"
    victim_dir.mkdir()
    victim = victim_dir / "keep.txt"
    victim.write_text("precious")
    outside = tmp_path / "outside.txt"
    code = "def f():\n    " + body.format(
        victim=str(victim), victim_dir=str(victim_dir), outside=str(outside), port=port, parent=os.getpid()
    )
    problem = Problem(
        "hostile", "", "", domain="python", meta={"prompt": "", "test": TEST, "entry_point": "f"}
    )
    before = set(sandbox_tmp.glob("prmkit-sandbox-*"))
    limits = SandboxLimits(wall_seconds=WALL, cpu_seconds=2, memory_bytes=512 << 20, audit_guard=guard)

    start = time.monotonic()
    verdict = verify_python(problem, code, limits)
    elapsed = time.monotonic() - start

    assert not verdict.ok and verdict.reason, verdict
    assert elapsed < WALL + 3, f"took {elapsed:.1f}s"
    assert SECRET not in verdict.reason
    assert victim.read_text() == "precious" and not outside.exists()
    assert hits == [], "a connection reached the host"
    time.sleep(0.05)
    assert _sandbox_procs(sandbox_tmp) == [], "stray sandbox process"
    assert set(sandbox_tmp.glob("prmkit-sandbox-*")) == before, "stray temp dir"


def test_benign_code_passes_in_both_modes():
    problem = Problem("ok", "", "", domain="python", meta={"prompt": "", "test": TEST, "entry_point": "f"})
    for guard in (True, False):
        verdict = verify_python(problem, "def f():\n    return 1\n", SandboxLimits(audit_guard=guard))
        assert verdict.ok, verdict


def test_candidate_main_block_does_not_run():
    """As in HumanEval's harness, the program is not `__main__`: a candidate's demo code (here reading stdin)
    does not run, and `check` decides."""
    problem = Problem("ok", "", "", domain="python", meta={"prompt": "", "test": TEST, "entry_point": "f"})
    code = "def f():\n    return 1\n\nif __name__ == '__main__':\n    print(f(input()))\n"
    assert verify_python(problem, code).ok


@pytest.mark.skipif(os.geteuid() != 0, reason="privileges are dropped only when running as root")
def test_concurrent_runs_get_their_own_unprivileged_uid():
    """RLIMIT_NPROC counts per uid: runs sharing one uid would share one process budget."""
    from concurrent.futures import ThreadPoolExecutor

    from prmkit.verify.sandbox import SANDBOX_UIDS, run_sandboxed

    with ThreadPoolExecutor(2) as ex:
        results = list(ex.map(lambda _: run_sandboxed("import os\nprint(os.getuid(), os.getgid())"), range(2)))
    ids = [tuple(map(int, r.stdout.split())) for r in results]
    assert all(r.completed for r in results) and ids[0] != ids[1]
    assert all(uid == gid and uid in SANDBOX_UIDS for uid, gid in ids)
