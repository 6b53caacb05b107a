"""How much could a perfect *local* step checker gain over majority voting on a set of pools?

A local checker sees what a small verifier can learn from `prmkit data synth`: whether each written computation
`a op b = c` is arithmetically right, whether its operands are numbers of the question or results computed before
(no misread number), and whether the answer is the last computed result. It cannot judge whether the computations
are the ones the question asks for (an operation too many or too few, the wrong numbers paired). Selection: majority
voting among the samples that pass the checker (all answered samples when none passes), computed with
`prmkit.evaluate.bok` (same K-subsets, same paired bootstrap as `prmkit evaluate bok`). The printed difference is
an upper bound for any verifier that learns only these checks.

    python benchmarks/checker_ceiling.py --pools runs/policy_pools.jsonl --ks 4,8
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from prmkit.data.answers import answer_key
from prmkit.data.arith import ArithError, evaluate, parse_number
from prmkit.evaluate.bok import Candidate, accuracies, difference_rows

_EQUATION = re.compile(r"(\d+(?:\.\d+)?)\s*([-+*/x×])\s*(\d+(?:\.\d+)?)\s*=\s*\$?(-?\d+(?:\.\d+)?)")


def _right(a: str, op: str, b: str, result: str) -> bool:
    try:
        return evaluate(f"{a} {'*' if op in 'x×' else op} {b}") == parse_number(result)
    except ArithError:  # division by zero
        return False


def passes(question: str, steps: list[str], answer: str | None) -> bool:
    """The sample states an answer, every computation is right and uses only the question's numbers or earlier
    results, and the answer is the last result (when there is a computation)."""
    if answer is None:
        return False
    known = set(re.findall(r"\d+", question))
    result = None
    for a, op, b, result in _EQUATION.findall(" ".join(steps)):
        if not _right(a, op, b, result) or a not in known or b not in known:
            return False
        known.add(result)
    return result is None or answer_key(result) == answer_key(answer)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--pools", nargs="+", required=True, help="Pool JSONL files of sampled traces (verified)")
    p.add_argument("--ks", default="4,8")
    p.add_argument("--bootstrap", type=int, default=1000)
    args = p.parse_args()
    majority, checked = [], []
    passed = {True: 0, False: 0}
    for path in args.pools:
        for line in Path(path).read_text(encoding="utf-8").splitlines():
            pool = json.loads(line)
            question = pool["problem"]["question"]
            majority.append([Candidate(t["answer"], bool(t["correct"])) for t in pool["traces"]])
            row = []
            for t in pool["traces"]:
                ok = passes(question, t["steps"], t["answer"])
                passed[bool(t["correct"])] += ok
                row.append(Candidate(t["answer"], bool(t["correct"]), 1.0 + 1000.0 * ok))  # votes of passers win
            checked.append(row)
    ks = [int(k) for k in args.ks.split(",")]
    methods = {"majority": ("majority", majority), "checker": ("weighted", checked), "oracle": ("oracle", majority)}
    values = accuracies(methods, ks)
    traces = sum(len(r) for r in majority)
    correct = sum(c.correct for r in majority for c in r)
    print(f"{len(majority)} problems, {traces} traces ({correct} correct); the checker passes {passed[True]} of the "
          f"correct and {passed[False]} of the {traces - correct} wrong traces")
    print("| K | majority | checker, then majority | oracle | checker minus majority [95% interval] |")
    print("|---:|---:|---:|---:|---|")
    for row in difference_rows({k: methods[k] for k in ("majority", "checker")}, "majority", ks,
                               n_boot=args.bootstrap, values=values):
        k = row["k"]
        print(f"| {k} | {100 * values['majority', k].mean():.1f} | {100 * values['checker', k].mean():.1f} | "
              f"{100 * values['oracle', k].mean():.1f} | {100 * row['mean']:+.1f} "
              f"[{100 * row['lo']:+.1f}, {100 * row['hi']:+.1f}] |")


if __name__ == "__main__":
    main()
