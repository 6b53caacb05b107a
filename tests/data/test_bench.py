"""The bench's problems, constructed traces and the exact step checker (no model)."""

from __future__ import annotations

import random

import pytest

from prmkit.data.bench import (
    PROCESS_ONLY,
    SLIPS,
    bench_problems,
    constructed_traces,
    graph_rows,
    path_values,
)
from prmkit.data.bench_checker import check_steps, first_wrong
from prmkit.data.demo_problems import demo_problems

APPLY = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b, "/": lambda a, b: a // b}


@pytest.mark.parametrize("size", ["small", "medium", "large"])
def test_problems_follow_their_graph_at_each_level(size):
    problems = bench_problems(60, seed=2, levels=(1, 2, 3, 4, 5, 6), size=size)
    assert [p.meta["level"] for p in problems[:6]] == [1, 2, 3, 4, 5, 6]
    assert bench_problems(60, seed=2, size=size) == problems  # seeded
    for p in problems:
        rows = graph_rows(p)
        assert len(rows) == p.meta["level"]
        for op, a, b, v in rows:
            assert APPLY[op](a, b) == v and v >= 0 and (op != "/" or a % b == 0)
        assert str(rows[-1][3]) == p.answer
        stated = set(p.meta["quantities"])
        produced = set()
        for _, a, b, v in rows:  # each operand is stated by the question or made by an earlier row
            assert {a, b} <= stated | produced
            produced.add(v)
        assert max(p.meta["quantities"]) <= {"small": 20, "medium": 100, "large": 1000}[size]


def test_demo_problems_stay_held_out_and_bad_difficulty_is_refused():
    held = {p.question for p in demo_problems(200, 0)}
    assert not held & {p.question for p in bench_problems(200, seed=0)}
    with pytest.raises(ValueError, match=r"outside the templates' 1\.\.8"):
        bench_problems(4, levels=(0, 9))
    with pytest.raises(ValueError, match="unknown size 'huge'"):
        bench_problems(4, size="huge")


def test_constructed_traces_have_their_slip_at_a_known_step_and_the_checker_agrees():
    rng = random.Random(0)
    kinds: dict[str, list[bool]] = {}
    for p in bench_problems(200, seed=1):
        for t in constructed_traces(p, SLIPS, rng):
            assert len(t.labels) == len(t.trace.steps)
            assert first_wrong(check_steps(p, t.trace.steps)) == t.first_error, (t.slip, t.trace.steps)
            kinds.setdefault(t.slip, []).append(t.trace.correct)
            if t.slip == "":
                assert t.first_error == -1 and t.trace.correct and all(t.labels)
            else:
                assert t.first_error >= 0 and t.labels[t.first_error] == 0 and all(t.labels[: t.first_error])
    for kind in PROCESS_ONLY:  # the process errors an outcome label cannot see: the answer stays right
        assert all(kinds[kind])
    for kind in ("answer", "drop"):
        assert not any(kinds[kind])
    for kind in ("arithmetic", "operation", "operand"):  # carried to the end: nearly always a wrong answer
        assert sum(kinds[kind]) <= 0.05 * len(kinds[kind])


def _problem(quantities, graph):
    from prmkit.data.records import Problem

    return Problem("p", "q", str(graph[-1][3]), None, "math", {"quantities": quantities, "graph": graph, "level": 3})


def test_checker_judges_each_kind_of_step():
    p = _problem([17, 15, 13, 2], [["+", 17, 15, 32], ["-", 32, 13, 19], ["*", 19, 2, 38]])
    verdicts = check_steps(p, [
        "17 + 15 = 32.",  # right
        "17 + 15 = 33.",  # wrong arithmetic
        "17 + 16 = 33.",  # reads a number off the path
        "17 - 13 = 4 apples, and 4 + 15 = 19.",  # a reordering of the additive run: right
        "32 * 13 = 416.",  # right arithmetic on path values, but a result off the path (wrong operation)
        "We add the numbers.",  # no number: right
        "The answer is $38$.",
        "The answer is 19 * 2 = 38 apples.",
        "The answer is $39$.",
        "19 × 2 = 38 and 38 ÷ 2 = 19.",  # the other signs
        "32 apples - 13 apples = 18 apples.",  # units between the numbers: still a computation
    ])
    assert [v.verdict for v in verdicts] == ["right", "wrong", "wrong", "right", "wrong", "right", "right", "right",
                                             "wrong", "right", "wrong"]
    assert verdicts[10].reason == "32 - 13 is 19, not 18"
    assert "33" in verdicts[1].reason and "reads 16" in verdicts[2].reason and "answer line" in verdicts[8].reason
    assert first_wrong(verdicts) == 1


def test_checker_cannot_decide_a_bare_number_off_the_path():
    p = bench_problems(1, seed=0, levels=(2,))[0]
    off = max(path_values(p)) + 7
    verdict = check_steps(p, [f"Now there are {off} apples."])[0]
    assert verdict.verdict == "undecided" and str(off) in verdict.reason
    assert first_wrong([check_steps(p, ["Let us think."])[0], verdict]) == 1  # taken as wrong
