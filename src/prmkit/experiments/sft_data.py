"""The data of the policy's supervised warm start (`prmkit sft`): bench problems (`prmkit.data.bench`) with their
right constructed trace, as the prompt the bench samples the policy with and the completion it should write.

- **Problems** are drawn with a seed of their own, never the bench's, leaving out (`warm_start_problems`) what
  `prmkit bench --seed BENCH_SEED` evaluates and the questions of other evaluation sets; the questions are kept
  in the output (`sft_data.jsonl`) and `prmkit bench --policy` checks its own problems against them.
- **Prompt**: the domain's few-shot prompt (`build_prompt`) in the policy's chat template (`in_chat_template`),
  exactly what `generate_pools` hands the sampler backend and its `format_prompt` renders; or another template's
  (`template`, e.g. `generate_math_0shot`: the instruction and the question alone, a sixth of the tokens a step,
  for a policy that is then sampled with the same template: `prmkit rl grpo --template`).
- **Completion**: the right trace's steps (one computation each, then "The answer is $N$.") joined by
  ` [STEP] ` as in the few-shot answers, after the prompt as a rollout's partial answer follows it
  (`prmkit.generate.rollout.partial_answer`): a space between them unless the prompt ends with whitespace. A chat
  prompt ends on the assistant turn's newline, and so does a prompt left as raw text (a model without a chat
  template, Gemma-3-270M; `chat` off): every built-in template ends on "Answer:" and a newline. A student
  warm-started so reads, after a prefix, the text it was trained on ("Answer:\n3 * 4 = 12. [STEP]", not
  "Answer:\n 3 * 4 ..."). TRL appends the tokenizer's end-of-sequence token (`<|im_end|>`, the end of a chat turn,
  for SmolLM2; `<eos>` for Gemma-3).

    >>> rows = sft_rows(warm_start_problems(2, seed=1, levels=(1,)), tokenizer=None)
    >>> rows[0]["completion"].endswith("The answer is $" + rows[0]["answer"] + "$.")
    True
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from prmkit.data.bench import bench_problems, constructed_traces
from prmkit.data.records import Problem
from prmkit.domains import STEP
from prmkit.generate.prompts import build_prompt, in_chat_template

__all__ = ["held_out_questions", "sft_rows", "warm_start_problems"]


def held_out_questions(bench_seed: int, holdout: int, levels: tuple[int, ...], size: str) -> set[str]:
    """The questions of the bench's first `holdout` problems at `bench_seed` (what it evaluates with these levels
    and size and at most that many problems)."""
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
    """One {prompt, completion} row per problem (module doc), with its id, question, level and answer.
    `tokenizer`: the policy's (its chat template renders the prompt); None: raw few-shot text. `template`: the
    prompt template text (None: the domain's few-shot one)."""
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
