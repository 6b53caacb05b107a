"""The sampling interface every generation backend implements, and its settings.

Defaults are the MCNIG paper's (sec. 4.2): K independent samples with nucleus sampling at T = 1.0, top-p 0.95.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

__all__ = ["Backend", "BackendOptions", "Completion", "SamplingConfig"]


@dataclass(frozen=True)
class SamplingConfig:
    """How to sample the K continuations of each prompt."""

    n: int = 8  # K samples per prompt
    temperature: float = 1.0  # sec. 4.2
    top_p: float = 0.95  # sec. 4.2
    max_new_tokens: int = 512  # per sample
    seed: int = 0
    stop: tuple[str, ...] = ()  # a completion ends before the first of these strings


@dataclass(frozen=True)
class BackendOptions:
    """Backend-specific settings; each backend reads the fields it needs."""

    batch_size: int = 16  # sequences per forward batch (transformers)
    chat: bool = True  # few-shot Q/A prompts in the model's chat template, when it has one (transformers, vllm)
    dtype: str | None = None  # weights dtype; default float32 (transformers, CPU) / "auto" (vllm: the model's own)
    base_url: str = "http://127.0.0.1:8000"  # OpenAI-compatible server (openai)
    api_key_env: str = "OPENAI_API_KEY"  # environment variable holding the key, if any (openai)
    timeout: float = 600.0  # seconds per HTTP request (openai)
    prompts_per_request: int = 8  # prompts sent in one /v1/completions request (openai)


@dataclass(frozen=True)
class Completion:
    text: str
    tokens: int  # generated tokens (for throughput)


class Backend(Protocol):
    name: str

    def generate(self, prompts: list[str], cfg: SamplingConfig) -> list[list[Completion]]:
        """cfg.n completions for each prompt, in prompt order."""
        ...


def cut_at_stop(text: str, stop: tuple[str, ...]) -> str:
    """The text before the first stop string (the stop string itself is dropped)."""
    cut = min((i for s in stop if (i := text.find(s)) >= 0), default=len(text))
    return text[:cut]
