"""Python validator (MCNIG paper sec 3.1): the candidate run against HumanEval's `check(entry_point)` in the sandbox,
not as `__main__`; it passes when the program runs to its end. `meta["timeout"]` (s), `meta["memory_mb"]` set limits."""

import re
import signal

from prmkit.data.records import Problem
from prmkit.verify.base import Verdict
from prmkit.verify.sandbox import SandboxLimits, SandboxResult, run_sandboxed

__all__ = ["program_for", "verify_python"]

_SIGNALS = {signal.SIGXCPU: "CPU time limit exceeded", signal.SIGXFSZ: "file/output size limit exceeded",
            signal.SIGKILL: "killed", signal.SIGSEGV: "segmentation fault"}


def program_for(problem: Problem, answer: str) -> str:
    """`prompt + candidate + test + check(entry_point)`; a candidate that defines the function replaces the stub."""
    meta = problem.meta
    entry, prompt, test = meta["entry_point"], meta.get("prompt", ""), meta["test"]
    defines = re.search(rf"^\s*def\s+{re.escape(entry)}\s*\(", answer, re.M)
    body = f"{prompt}\n{answer}" if defines else prompt + answer
    return f"{body}\n\n{test}\n\ncheck({entry})\n"


def _reason(result: SandboxResult, limits: SandboxLimits) -> str:
    if result.timed_out:
        return f"timed out after {limits.wall_seconds:g}s wall clock"
    code = result.returncode or 0
    if code < 0:
        return _SIGNALS.get(-code, f"killed by signal {-code}")
    lines = [ln for ln in result.stderr.strip().splitlines() if ln.strip()]
    return (lines[-1] if lines else f"exit status {code}")[:200]


def verify_python(problem: Problem, answer: str, limits: SandboxLimits | None = None) -> Verdict:
    """V_q(y): 1 iff the candidate passes `check(entry_point)` within the sandbox limits."""
    if "test" not in problem.meta or "entry_point" not in problem.meta:
        return Verdict(False, "problem has no meta['test'] / meta['entry_point']")
    if not answer.strip():
        return Verdict(False, "empty answer")
    if limits is None:
        t = float(problem.meta.get("timeout", 10.0))
        limits = SandboxLimits(wall_seconds=t, cpu_seconds=max(1, int(t)),
                               memory_bytes=int(problem.meta.get("memory_mb", 1024)) << 20)
    result = run_sandboxed(program_for(problem, answer), limits, main=False)
    if result.completed:
        return Verdict(True, "all tests passed")
    if result.returncode == 0:
        return Verdict(False, "exited before the tests finished")
    return Verdict(False, _reason(result, limits))
