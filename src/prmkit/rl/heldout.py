"""Held-out accuracy of a policy: sampled completions at the training temperature and one greedy completion per
problem, each validated, through `prmkit.generate`'s transformers backend."""

import time
from itertools import groupby
from typing import Any

from prmkit.data.records import Problem
from prmkit.domains import STOP, extract_answer, split_steps, verify_answer
from prmkit.generate.backends.base import BackendOptions, SamplingConfig
from prmkit.generate.backends.hf import TransformersBackend
from prmkit.generate.prompts import build_prompt

__all__ = ["heldout_accuracy"]

_GREEDY_T = 1e-6  # the samplers take the argmax at this temperature


def heldout_accuracy(model: Any, tokenizer: Any, problems: list[Problem], samples: int, temperature: float,
                     top_p: float, max_new_tokens: int, seed: int = 0, chat: bool = True,
                     template: str | None = None, batch_size: int = 32) -> dict[str, float]:
    """{"accuracy" (mean over the sampled completions), "greedy_accuracy" (share of problems), "steps", "answered" (per
    sampled completion), "samples", "tokens" (sampled and greedy), "seconds", "right" (each problem's right samples),
    "greedy_right"}, per-problem lists in the order of `problems`; `template`: the prompt text (None: the domain's)."""
    start = time.perf_counter()
    was_training = model.training
    model.eval()
    side = tokenizer.padding_side
    backend = TransformersBackend((model, tokenizer), BackendOptions(batch_size=batch_size, chat=chat))
    correct = steps = answered = total = greedy = tokens = 0
    right: dict[str, int] = {}
    greedy_right: dict[str, int] = {}
    try:
        for domain, group in groupby(sorted(problems, key=lambda p: p.domain), key=lambda p: p.domain):
            group = list(group)
            prompts = [build_prompt(p, template) for p in group]
            stop = STOP.get(domain, ())
            sampled = backend.generate(prompts, SamplingConfig(samples, temperature, top_p, max_new_tokens, seed, stop))
            argmax = backend.generate(prompts, SamplingConfig(1, _GREEDY_T, 1.0, max_new_tokens, seed, stop))
            for problem, completions, (best,) in zip(group, sampled, argmax, strict=True):
                right[problem.id] = 0
                for completion in completions:
                    answer = extract_answer(domain, completion.text)
                    ok = verify_answer(problem, answer).ok
                    correct += ok
                    right[problem.id] += ok
                    answered += answer is not None
                    steps += len(split_steps(completion.text))
                    tokens += completion.tokens
                    total += 1
                greedy_right[problem.id] = int(verify_answer(problem, extract_answer(domain, best.text)).ok)
                greedy += greedy_right[problem.id]
                tokens += best.tokens
    finally:
        tokenizer.padding_side = side
        model.train(was_training)
    return {"accuracy": correct / max(total, 1), "greedy_accuracy": greedy / max(len(problems), 1),
            "steps": steps / max(total, 1), "answered": answered / max(total, 1), "samples": total,
            "tokens": tokens, "seconds": round(time.perf_counter() - start, 1),
            "right": [right[p.id] for p in problems], "greedy_right": [greedy_right[p.id] for p in problems]}
