"""vLLM backend (optional extra `prmkit[vllm]`, GPU): `LLM(...).generate(prompts, SamplingParams(n=K, ...))`,
prompts in the model's chat template as with the transformers backend (`--no-chat` turns it off).

vLLM is imported only when this backend is constructed. Not exercised by the test suite (no GPU there).
"""

from __future__ import annotations

from prmkit.generate.backends.base import BackendOptions, Completion, SamplingConfig
from prmkit.generate.prompts import in_chat_template

__all__ = ["VLLMBackend"]


class VLLMBackend:
    name = "vllm"

    def __init__(self, model: str, options: BackendOptions | None = None):
        options = options or BackendOptions()
        try:
            from vllm import LLM
        except ImportError as e:
            raise ImportError("the vllm backend needs vLLM: pip install 'prmkit[vllm]'") from e
        from prmkit.models.loading import EMBEDDED, resolve_model

        path = str(resolve_model(model)) if model in EMBEDDED else model
        self.llm = LLM(model=path, dtype=options.dtype or "auto")
        self.chat = options.chat

    def _params(self, cfg: SamplingConfig, seed: int):
        from vllm import SamplingParams

        return SamplingParams(n=cfg.n, temperature=cfg.temperature, top_p=cfg.top_p, max_tokens=cfg.max_new_tokens,
                              seed=seed, stop=list(cfg.stop) or None)

    def generate(self, prompts: list[str], cfg: SamplingConfig) -> list[list[Completion]]:
        return self.generate_rendered([self.render(p) for p in prompts], cfg, [cfg.seed] * len(prompts))

    def render(self, prompt: str) -> str:
        return in_chat_template(self.llm.get_tokenizer(), prompt, self.chat)

    def count_tokens(self, text: str) -> int:
        return len(self.llm.get_tokenizer()(text)["input_ids"])

    def context_length(self) -> int | None:
        return self.llm.llm_engine.model_config.max_model_len

    def generate_rendered(self, prompts: list[str], cfg: SamplingConfig, seeds: list[int]) -> list[list[Completion]]:
        """One SamplingParams per prompt, seeded per prompt; vLLM's prefix caching shares each prompt's prefill."""
        one = len(set(seeds)) == 1  # one seed for every prompt: one SamplingParams, as `generate` had
        params = self._params(cfg, seeds[0]) if one else [self._params(cfg, s) for s in seeds]
        outputs = self.llm.generate(prompts, params)
        return [[Completion(o.text, len(o.token_ids), o.stop_reason if isinstance(o.stop_reason, str) else None)
                 for o in out.outputs] for out in outputs]
