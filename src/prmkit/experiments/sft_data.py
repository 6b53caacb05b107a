"""The data of `prmkit sft`: bench problems drawn with a seed of their own, each the prompt the bench samples the
policy with and its right constructed trace as the completion (docs/bench.md, "A warm-started policy")."""

import random
from collections.abc import Iterable
from typing import Any

from prmkit.data.bench import bench_problems, constructed_traces
from prmkit.data.records import Problem
from prmkit.domains import STEP
from prmkit.generate.prompts import build_prompt, in_chat_template

__all__ = ["held_out_questions", "sft_rows", "warm_start_problems"]


def held_out_questions(bench_seed: int, holdout: int, levels: tuple[int, ...], size: str) -> set[str]:
    """The questions of the bench's first `holdout` problems at `bench_seed`."""
    return {p.question for p in bench_problems(holdout, bench_seed, levels, size)} if holdout else set()


def warm_start_problems(n: int, seed: int, levels: tuple[int, ...], size: str = "small", bench_seed: int = 0,
                        holdout: int = 1000, exclude: Iterable[str] = ()) -> list[Problem]:
    """`n` bench problems drawn with `seed`, none of whose questions is one of the held-out bench problems
    (`held_out_questions`) or in `exclude` (questions of other sets); the same for the same arguments."""
    if seed == bench_seed:
        raise ValueError(f"the warm start's seed must differ from the bench's ({bench_seed}): its problems would be "
                         "the bench's own")
    if n < 1:
        raise ValueError("need at least one problem")
    held = held_out_questions(bench_seed, holdout, levels, size) | set(exclude)
    want = n
    while True:  # bench_problems(m) starts with bench_problems(n) for m > n: draw more until n are left
        kept = [p for p in bench_problems(want, seed, levels, size) if p.question not in held]
        if len(kept) >= n:
            return kept[:n]
        want += n - len(kept) + 8


def sft_rows(problems: Iterable[Problem], tokenizer: Any, chat: bool = True, seed: int = 0,
             template: str | None = None) -> list[dict[str, Any]]:
    """One {prompt, completion} row per problem, with its id, question, level and answer. The prompt is `build_prompt`'s
    in the policy's chat template (`tokenizer` None: raw text); the completion is the right trace's steps joined by
    ` [STEP] `, after a space unless the prompt ends with whitespace (as a rollout's partial answer follows it)."""
    rng = random.Random(f"sft-{seed}")
    out = []
    for p in problems:
        raw = build_prompt(p, template)
        prompt = in_chat_template(tokenizer, raw, chat) if tokenizer is not None else raw
        (right,) = constructed_traces(p, (), rng)
        completion = f" {STEP} ".join(right.trace.steps)
        out.append({"prompt": prompt, "completion": completion if prompt[-1:].isspace() else " " + completion,
                    "problem_id": p.id, "question": p.question, "level": p.meta["level"], "answer": p.answer})
    return out
