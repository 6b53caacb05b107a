"""A toy generation backend for the tests, "script": every sample of every prompt is the same two steps, ending in the
answer 7. One class here plus one registry line where it is used:

    monkeypatch.setitem(BACKENDS, "script", ScriptBackend)
"""

from __future__ import annotations

from typing import Any

from prmkit.generate.backends import BackendOptions, Completion, SamplingConfig

SCRIPT = " I add what the question gives. [STEP] The answer is 7."


class ScriptBackend:
    """A `PromptBackend` without a model: what `generate` and the rollout labelers call, and nothing else."""

    name = "script"

    def __init__(self, model: Any, options: BackendOptions) -> None:
        self.model, self.options = model, options

    def render(self, prompt: str) -> str:
        return prompt

    def count_tokens(self, text: str) -> int | None:
        return len(text.split())

    def context_length(self) -> int | None:
        return None

    def generate_rendered(self, prompts: list[str], cfg: SamplingConfig, seeds: list[int]) -> list[list[Completion]]:
        return [[Completion(SCRIPT, len(SCRIPT.split())) for _ in range(cfg.n)] for _ in prompts]

    def generate(self, prompts: list[str], cfg: SamplingConfig) -> list[list[Completion]]:
        return self.generate_rendered([self.render(p) for p in prompts], cfg, list(range(len(prompts))))
