from __future__ import annotations

import pytest

from prmkit.data.records import Pool, Problem, Trace
from prmkit.domains import extract_answer, parse_completion
from prmkit.generate.filtering import filter_pools, subsample


@pytest.mark.parametrize(
    ("domain", "text", "answer"),
    [
        ("math", "a [STEP] The answer is $12$.", "12"),
        ("math", "half is $\\frac{1}{2}$ [STEP] final $7$", "7"),
        ("math", "a [STEP] \\boxed{5} or $6$", "5"),
        ("math", "The answer is 54.", "54"),
        ("math", "no answer at all", None),
        # GSM8K money: dollar signs that are currency, not math delimiters
        ("math", "She earned $12 * 5 = 60. [STEP] so her earnings is $10.33. The answer is $10.33, which", "10.33"),
        ("math", "$12 an hour [STEP] so she earns $", None),
        ("math", "It costs $5 and $7.\nThe answer is $12$.", "12"),
        # truncated generations: the final number of an equation; an expression cut at an operator is no answer
        ("math", "a [STEP] The answer is 29 + 14 = 43", "43"),
        ("math", "a [STEP] The answer is 29 + 14 = 43.", "43"),
        ("math", "The answer is $196 * 2 = $", None),
        ("math", "The answer is 196 * 2 =", None),
        ("math", "The answer is $29 + 14 = 43$.", "43"),
        ("math", "The answer is 1,000 apples.", "1000"),
        ("math", "The answer is -3.", "-3"),
        # an expression without "=" is the answer as written, never its last number (3/4 is not 4)
        ("math", "The answer is 3/4.", "3/4"),
        ("math", "a [STEP] The answer is 29 + 14", "29 + 14"),
        ("math", "The answer is 3 x 4.", "3 * 4"),
        ("math", "The answer is 4 xylophones.", "4"),
        ("python", "idea [STEP]\n```python\ndef f():\n    return 1\n```\n", "def f():\n    return 1"),
        ("python", "unfinished\n```python\ndef f():\n    retu", None),
        ("sql", "s [STEP]\n```sql\nSELECT 1;\n```", "SELECT 1;"),
    ],
)
def test_extract(domain, text, answer):
    assert extract_answer(domain, text) == answer


def test_a_fraction_without_dollars_is_judged_as_the_fraction():
    from prmkit.domains import verify_answer

    answer = extract_answer("math", "3 of 4 slices are eaten. [STEP] The answer is 3/4.")
    assert verify_answer(Problem("p", "What fraction?", "0.75"), answer).ok
    assert not verify_answer(Problem("q", "How many slices?", "4"), answer).ok


def test_steps_split_on_delimiter():
    steps, answer = parse_completion("math", " one [STEP]  [STEP] two [STEP] The answer is $2$. ")
    assert steps == ["one", "two", "The answer is $2$."] and answer == "2"


def _pool(pid, flags):
    """flags: True / False (correct / wrong) or None (no extractable answer)."""
    traces = [
        Trace(f"{pid}/{k}", pid, ["s"], None if f is None else str(k), bool(f)) for k, f in enumerate(flags)
    ]
    return Pool(Problem(pid, "q", "1"), traces)


def test_filter_stages_and_counts():
    pools = [
        _pool("all-correct", [True] * 4),
        _pool("mixed", [True, False, None, True] + [False] * 10),
        _pool("all-wrong", [False] * 3),
        _pool("no-answers", [None] * 4),
        _pool("correct-after-drop", [True, True, None]),
    ]
    kept, report = filter_pools(pools, max_traces=8)
    assert [p.problem.id for p in kept] == ["mixed", "all-wrong"]
    counts = [(n, t) for _, n, t in report.stages]
    assert counts == [(5, 28), (4, 22), (2, 16), (2, 11)]
    mixed = kept[0].traces
    assert len(mixed) == 8 and sum(t.correct for t in mixed) == 1


def test_subsample_tops_up_with_correct_and_is_seeded():
    import random

    pool = _pool("p", [True] * 9 + [False] * 2)
    picked = subsample(pool, 8, random.Random(0))
    assert len(picked.traces) == 8 and sum(not t.correct for t in picked.traces) == 2
    assert [t.id for t in subsample(pool, 8, random.Random(0)).traces] == [t.id for t in picked.traces]
    assert len(subsample(_pool("q", [False] * 3), 8, random.Random(0)).traces) == 3


def test_chat_messages_from_few_shot_prompt():
    from prmkit.data.demo_problems import demo_problems
    from prmkit.generate.prompts import build_prompt, chat_messages

    problem = demo_problems(1)[0]
    messages = chat_messages(build_prompt(problem))
    assert messages[0]["role"] == "system" and "[STEP]" in messages[0]["content"]
    assert [m["role"] for m in messages[1:]] == ["user", "assistant"] * 3 + ["user"]
    assert messages[-1]["content"] == problem.question
    assert messages[2]["content"].endswith("The answer is $10$.")
    assert chat_messages("def f(x):\n    return x\n") is None
