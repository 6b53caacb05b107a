"""Held-out accuracy of a policy: `samples` completions per problem at the training temperature, each validated.

Sampling goes through `prmkit.generate`'s transformers backend (same prompts and stop strings as `prmkit generate`),
on the in-memory policy (a peft model works as is). Accuracy is the mean over all samples (a pass@1 estimate).
"""

from __future__ import annotations

from typing import Any

from prmkit.data.records import Problem
from prmkit.generate.backends.base import BackendOptions, SamplingConfig
from prmkit.generate.backends.hf import TransformersBackend
from prmkit.generate.extract import extract_answer, split_steps
from prmkit.generate.prompts import STOP, build_prompt
from prmkit.verify import verify_answer

__all__ = ["heldout_accuracy"]


def heldout_accuracy(model: Any, tokenizer: Any, problems: list[Problem], samples: int, temperature: float,
                     top_p: float, max_new_tokens: int, seed: int = 0, chat: bool = True,
                     template: str | None = None) -> dict[str, float]:
    """{"accuracy", "steps" (mean per completion), "answered" (fraction with an extractable answer), "samples"};
    `template`: the prompt template text (None: the domain's)."""
    was_training = model.training
    model.eval()
    side = tokenizer.padding_side
    backend = TransformersBackend((model, tokenizer), BackendOptions(batch_size=max(samples, 8), chat=chat))
    correct = steps = answered = total = 0
    for problem in problems:
        cfg = SamplingConfig(samples, temperature, top_p, max_new_tokens, seed, STOP.get(problem.domain, ()))
        for completion in backend.generate([build_prompt(problem, template)], cfg)[0]:
            answer = extract_answer(problem.domain, completion.text)
            correct += verify_answer(problem, answer).ok
            answered += answer is not None
            steps += len(split_steps(completion.text))
            total += 1
    tokenizer.padding_side = side
    model.train(was_training)
    return {"accuracy": correct / total, "steps": steps / total, "answered": answered / total, "samples": total}
