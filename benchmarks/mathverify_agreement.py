"""Agreement of the math validator (math-verify) with the `is_correct` flags of the GSM8K verifier paper.

Each of the 660 problems of `candidates_dev.jsonl` carries four GPT-3 solutions with an `is_correct` flag;
we verify each solution's extracted `A: x` answer against the ground truth's final answer (`verify(parse(gold),
parse(pred))`, MCNIG paper sec. 3.1) and print the agreement and every disagreement.

    python benchmarks/mathverify_agreement.py [path/to/candidates_dev.jsonl]   # default: ../shared beside the repo
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from prmkit.data.gsm8k import read_gsm8k_candidates
from prmkit.domains import verify_answer

DEFAULT = str(Path(__file__).resolve().parents[2] / "shared/data/gsm8k/candidates_dev.jsonl")


def main(path: str = DEFAULT) -> int:
    t0 = time.perf_counter()
    n = agree = 0
    disagreements = []
    for pool in read_gsm8k_candidates(path):
        for trace in pool.traces:
            verdict = verify_answer(pool.problem, trace.answer or "")
            n += 1
            if verdict.ok == trace.correct:
                agree += 1
            else:
                disagreements.append(
                    (trace.id, pool.problem.answer, trace.answer, trace.correct, verdict.reason)
                )
    dt = time.perf_counter() - t0
    print(f"math-verify vs is_correct: {agree}/{n} = {agree / n:.2%} agree ({dt:.1f}s)")
    for tid, gold, pred, flag, reason in disagreements:
        print(f"  {tid}: gold={gold!r} pred={pred!r} is_correct={flag} math-verify: {reason}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(*sys.argv[1:]))
