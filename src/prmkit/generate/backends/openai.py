"""OpenAI-compatible HTTP backend: POST `{base_url}/v1/completions` (vLLM, llama.cpp, TGI, SGLang servers), standard
library only; choice `index` = prompt_index * n + sample_index; the API key read from the environment, never a flag."""

import json
import os
import urllib.request
from dataclasses import replace

from prmkit.generate.backends.base import BackendOptions, Completion, SamplingConfig, split_at_stop

__all__ = ["OpenAIBackend"]


class OpenAIBackend:
    name = "openai"

    def __init__(self, model: str, options: BackendOptions | None = None):
        options = options or BackendOptions()
        base = options.base_url.rstrip("/")
        self.url = base + ("/completions" if base.endswith("/v1") else "/v1/completions")
        self.model, self.options = model, options

    def generate(self, prompts: list[str], cfg: SamplingConfig) -> list[list[Completion]]:
        step = self.options.prompts_per_request
        return [row for i in range(0, len(prompts), step) for row in self._request(prompts[i : i + step], cfg)]

    def render(self, prompt: str) -> str:
        return prompt  # /v1/completions takes raw text: no chat template

    def count_tokens(self, text: str) -> int | None:
        return None  # no tokenizer here

    def context_length(self) -> int | None:
        return None

    def generate_rendered(self, prompts: list[str], cfg: SamplingConfig, seeds: list[int]) -> list[list[Completion]]:
        """One request per prompt, each with its own seed (the server's seeding decides reproducibility)."""
        return [self._request([p], replace(cfg, seed=s))[0] for p, s in zip(prompts, seeds, strict=True)]

    def _request(self, prompts: list[str], cfg: SamplingConfig) -> list[list[Completion]]:
        body = {"model": self.model, "prompt": prompts, "n": cfg.n, "temperature": cfg.temperature, "top_p": cfg.top_p,
                "max_tokens": cfg.max_new_tokens, "seed": cfg.seed}
        if cfg.stop:
            body["stop"] = list(cfg.stop)[:4]  # the OpenAI API accepts at most 4
        headers = {"Content-Type": "application/json"}
        if key := os.environ.get(self.options.api_key_env):
            headers["Authorization"] = f"Bearer {key}"
        req = urllib.request.Request(self.url, json.dumps(body).encode(), headers, method="POST")
        with urllib.request.urlopen(req, timeout=self.options.timeout) as resp:
            data = json.load(resp)
        choices = sorted(data["choices"], key=lambda c: c["index"])
        if len(choices) != len(prompts) * cfg.n:
            raise ValueError(f"{self.url}: expected {len(prompts) * cfg.n} choices, got {len(choices)}")
        total = int(data.get("usage", {}).get("completion_tokens", 0))
        per = [total // len(choices) + (k < total % len(choices)) for k in range(len(choices))]
        texts = [_completion(c, cfg.stop, t) for c, t in zip(choices, per, strict=True)]
        return [texts[k * cfg.n : (k + 1) * cfg.n] for k in range(len(prompts))]


def _completion(choice: dict, stop: tuple[str, ...], tokens: int) -> Completion:
    """A choice as a Completion: its text cut at the first stop string; `stopped_at` is that string, or the server's
    `stop_reason` (vLLM and sglang servers name the stop string that ended a choice whose text they cut)."""
    text, stopped_at = split_at_stop(choice["text"], stop)
    reason = choice.get("stop_reason")
    return Completion(text, tokens, stopped_at or (reason if isinstance(reason, str) else None))
