"""The sampling interface every generation backend implements, and its settings (defaults: MCNIG paper sec 4.2)."""

import zlib
from dataclasses import dataclass
from typing import Any, Protocol

from prmkit.generate.prompts import in_chat_template

__all__ = ["Backend", "BackendOptions", "ChatPrompts", "Completion", "PromptBackend", "SamplingConfig", "row_seed",
           "split_at_stop"]


@dataclass(frozen=True)
class SamplingConfig:
    """How to sample the K continuations of each prompt."""

    n: int = 8  # K samples per prompt
    temperature: float = 1.0  # sec. 4.2
    top_p: float = 0.95  # sec. 4.2
    max_new_tokens: int = 512  # per sample
    seed: int = 0
    stop: tuple[str, ...] = ()  # a completion ends before the first of these strings
    template: str | None = None  # prompt template text (None: each domain's few-shot one; prompts.build_prompt)


@dataclass(frozen=True)
class BackendOptions:
    """Backend-specific settings; each backend reads the fields it needs."""

    batch_size: int = 16  # sequences per forward batch (transformers)
    chat: bool = True  # few-shot Q/A prompts in the model's chat template, when it has one (transformers, vllm)
    dtype: str | None = None  # weights dtype (None: float32 on a CPU, bfloat16 on a GPU; vllm: the model's own)
    base_url: str = "http://127.0.0.1:8000"  # OpenAI-compatible server (openai)
    api_key_env: str = "OPENAI_API_KEY"  # environment variable holding the key, if any (openai)
    timeout: float = 600.0  # seconds per HTTP request (openai)
    prompts_per_request: int = 8  # prompts sent in one /v1/completions request (openai)
    prefix_cache: bool = False  # keep each call's KV cache for the next call's prefixes (transformers; beam search)


@dataclass(frozen=True)
class Completion:
    text: str
    tokens: int  # generated tokens (for throughput)
    stopped_at: str | None = None  # the stop string that ended it (None: end of sequence, token limit, or unknown)


class Backend(Protocol):
    name: str

    def generate(self, prompts: list[str], cfg: SamplingConfig) -> list[list[Completion]]:
        """cfg.n completions for each prompt, in prompt order."""


class PromptBackend(Backend, Protocol):
    """What step-prefix rollouts need beyond `Backend`: `render` applies what `generate` would (the chat template);
    `generate_rendered` samples verbatim prompts, one seed each, so a prompt's samples do not depend on its batch."""

    def render(self, prompt: str) -> str:
        """`prompt` as `generate` would feed it to the model."""

    def count_tokens(self, text: str) -> int | None:
        """Tokens of `text` as fed to the model (None when the backend has no tokenizer)."""

    def context_length(self) -> int | None:
        """The model's context in tokens (None when unknown)."""

    def generate_rendered(self, prompts: list[str], cfg: SamplingConfig, seeds: list[int]) -> list[list[Completion]]:
        """cfg.n completions of each verbatim prompt; sample k of prompt i is seeded by `row_seed(seeds[i], k)`."""


class ChatPrompts:
    """`render` and `count_tokens` of a backend that holds the model's Hugging Face `tokenizer` and `chat`."""

    tokenizer: Any
    chat: bool

    def render(self, prompt: str) -> str:
        return in_chat_template(self.tokenizer, prompt, self.chat)

    format_prompt = render

    def count_tokens(self, text: str) -> int:
        return len(self.tokenizer(text)["input_ids"])


def row_seed(seed: int, k: int) -> int:
    """The seed of sample k of a prompt seeded `seed` (independent of batch position)."""
    return zlib.crc32(f"{seed}:{k}".encode())


def split_at_stop(text: str, stop: tuple[str, ...]) -> tuple[str, str | None]:
    """(the text before the first stop string, that stop string or None); the stop string itself is dropped."""
    found = [(i, s) for s in stop if (i := text.find(s)) >= 0]
    cut, which = min(found, key=lambda f: f[0], default=(len(text), None))
    return text[:cut], which

