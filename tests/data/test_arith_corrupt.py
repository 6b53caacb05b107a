import json
import random
import re
from collections import Counter
from fractions import Fraction

import pytest

from helpers import write_jsonl
from prmkit.data.arith import ArithError, evaluate, format_number, matches
from prmkit.data.corrupt import (
    BALANCE_KEYS,
    CorruptConfig,
    annotations,
    build_benchmark,
    corrupt_at,
    pick_balanced,
    substitute_numbers,
)
from prmkit.data.gsm8k import split_solution

NATALIA = ("Natalia sold clips to 48 of her friends in April, and then she sold half as many clips in May. "
           "How many clips did Natalia sell altogether in April and May?")
NATALIA_SOL = ("Natalia sold 48/2 = <<48/2=24>>24 clips in May.\n"
               "Natalia sold 48+24 = <<48+24=72>>72 clips altogether in April and May.\n#### 72")


def test_safe_evaluator():
    assert evaluate("48/2") == 24 and evaluate("(3+4)*2-1") == 13 and evaluate("0.1+0.2") == Fraction(3, 10)
    assert evaluate("-5+2") == -3
    for bad in ("__import__('os')", "2**10", "a*b", "1/0", "3%2", "()"):
        with pytest.raises(ArithError):
            evaluate(bad)
    assert format_number(Fraction(10, 3)) == "3.33" and format_number(Fraction(24)) == "24"
    assert matches(Fraction(10, 3), "3.33") and not matches(Fraction(10, 3), "3.4")


def test_substitute_numbers_whole_tokens_and_thousands():
    mapping = {Fraction(24): Fraction(25), Fraction(1000): Fraction(1200)}
    text = "24 and 124 and 2.4 and $1,000 and 1000."
    assert substitute_numbers(text, mapping) == "25 and 124 and 2.4 and $1,200 and 1200."


def test_corruption_propagates_to_later_steps_and_answer():
    c = corrupt_at(NATALIA, NATALIA_SOL, 0, "off_by", random.Random(3))
    assert c is not None and c.step == 0
    steps, answer = split_solution(c.text)
    wrong = int(c.wrong)
    assert wrong != 24 and steps[0] == f"Natalia sold 48/2 = {wrong} clips in May."
    assert steps[1] == f"Natalia sold 48+{wrong} = {48 + wrong} clips altogether in April and May."
    assert answer == str(48 + wrong)


def test_wrong_operation_shows_the_new_expression():
    c = corrupt_at(NATALIA, NATALIA_SOL, 1, "wrong_operation", random.Random(0))
    steps, answer = split_solution(c.text)
    assert c.step == 1 and steps[0] == split_solution(NATALIA_SOL)[0][0]
    shown = steps[1].split(" = ")[0].removeprefix("Natalia sold ")
    assert shown != "48+24" and evaluate(shown) == int(answer) != 72


def test_ambiguous_value_is_refused():
    # 24 also appears in the question: a later "24" might be the question's, so no corruption of it is safe
    q = "A box holds 24 pens. Tom has 48 pens, half as many as Ann... how many?"
    assert corrupt_at(q, NATALIA_SOL, 0, "off_by", random.Random(0)) is None
    with pytest.raises(ArithError):
        annotations("He has 2+2 = <<2+2=5>>5 apples\n#### 5")  # disagrees with its own result


def test_pick_balanced_prefers_least_used_position():
    class C:
        def __init__(self, step, last=False):
            self.step, self.last = step, last
    counts = Counter({0: 3, 1: 1, 2: 1})
    picks = [pick_balanced([C(0), C(1), C(2)], counts, random.Random(s)).step for s in range(2)]
    assert 0 not in picks and counts[0] == 3
    # by step, the unused step 1 wins; with final-step errors as one (busy) bucket, step 0 wins
    by_final = Counter({0: 1, "final": 5})
    assert pick_balanced([C(0), C(1, last=True)], Counter({0: 1}), random.Random(0)).step == 1
    assert pick_balanced([C(0), C(1, last=True)], by_final, random.Random(0), BALANCE_KEYS["step_or_final"]).step == 0


def test_build_benchmark_pairs_and_skips(tmp_path):
    rows = [{"question": NATALIA, "answer": NATALIA_SOL},
            {"question": "How many?", "answer": "He has 3 apples.\n#### 3"},  # no annotation
            {"question": "Q?", "answer": "x = <<2+2=5>>5\n#### 5"}]  # unverifiable annotation
    path = write_jsonl(tmp_path / "g.jsonl", rows)
    cfg = CorruptConfig(input=str(path), output=str(tmp_path / "b.jsonl"), pools=str(tmp_path / "p.jsonl"))
    records, pools, report = build_benchmark(cfg)
    assert report["usable"] == 1 and report["skipped"] == {"no annotations": 1, "annotation not evaluable": 1}
    ref, bad = records
    assert (ref.first_error, ref.final_answer_correct, bad.final_answer_correct) == (-1, True, False)
    assert bad.first_error >= 0 and bad.steps[:bad.first_error] == ref.steps[:bad.first_error]
    assert [t.correct for t in pools[0].traces] == [True, False] and pools[0].traces[1].answer == bad.answer
    again, _, _ = build_benchmark(cfg)
    assert [r.to_processbench() for r in again] == [r.to_processbench() for r in records]  # deterministic
    other, _, _ = build_benchmark(CorruptConfig(input=str(path), seed=1))
    assert json.dumps([r.to_processbench() for r in other]) != json.dumps([r.to_processbench() for r in records]) \
        or other[1].first_error == bad.first_error  # another seed may pick another error (same step allowed)


@pytest.mark.parametrize("rows,message", [
    ([], r"e\.jsonl: no problems \(the input is empty\)"),
    ([{"question": "How many?", "answer": "He has 3 apples.\n#### 3"}] * 2,
     r"e\.jsonl: none of its 2 problems gives a corrupted trace \(no annotations \(2\)\)"),
])
def test_an_input_that_gives_no_record_writes_no_benchmark(rows, message, tmp_path, capsys):
    from prmkit.cli.main import main

    path = write_jsonl(tmp_path / "e.jsonl", rows)
    out, pools = tmp_path / "b.jsonl", tmp_path / "p.jsonl"
    assert main(["data", "corrupt", "--input", path, "--output", str(out), "--pools", str(pools)]) == 2
    assert re.search(message, capsys.readouterr().err)
    assert not out.exists() and not pools.exists()
