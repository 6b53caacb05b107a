from __future__ import annotations

import threading

import pytest

from prmkit.data.records import Problem
from prmkit.domains import verify_answer, verify_answers
from prmkit.verify.math import math_equal


@pytest.mark.parametrize(
    ("gold", "pred", "ok"),
    [
        ("18", "18", True),
        ("18", "18.0", True),
        ("18", "$18$", True),
        ("18", "\\boxed{18}", True),
        ("0.5", "\\frac{1}{2}", True),
        ("1/2", "0.5", True),
        ("1000", "1,000", True),
        ("\\frac{3}{4}", "0.75", True),
        ("18", "17", False),
        ("18", "", False),
        ("3", "x", False),
        ("\\sqrt{2}", "1.41", False),
    ],
)
def test_math_equal(gold, pred, ok):
    assert verify_answer(Problem("p", "?", gold), pred).ok is ok


def test_math_is_safe_off_the_main_thread():
    out = {}
    t = threading.Thread(target=lambda: out.setdefault("v", math_equal("\\frac{1}{2}", "0.5")))
    t.start()
    t.join(10)
    assert out["v"].ok
    pairs = [(Problem(str(k), "?", str(k)), f"${k}$") for k in range(8)] + [(Problem("x", "?", "1"), "2")]
    assert [v.ok for v in verify_answers(pairs, workers=2)] == [True] * 8 + [False]


def test_missing_answer_and_unknown_domain():
    assert not verify_answer(Problem("p", "?", "1"), None).ok
    with pytest.raises(ValueError, match="no validator"):
        verify_answer(Problem("p", "?", "1", domain="poetry"), "1")


def test_the_timeout_bounds_the_check_not_math_verify_s_import():
    """On a loaded machine importing math-verify (sympy, its grammars) can take seconds; a right answer must not be
    judged wrong for it. A fresh interpreter whose import of math_verify takes 2 s (an import hook that waits, as a
    busy machine would) still judges 1/2 = 0.5 right within a 1 s timeout: the bound is the check's alone."""
    import subprocess
    import sys

    code = """if True:
        import importlib.abc, sys, time
        class Slow(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path=None, target=None):
                if name == "math_verify":
                    time.sleep(2.0)
                return None
        sys.meta_path.insert(0, Slow())
        from prmkit.verify.math import math_equal
        print(math_equal("1/2", "0.5", timeout=1.0))
    """
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "Verdict(ok=True" in out.stdout, out.stdout
