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

    def generate(self, prompts: list[str], cfg: SamplingConfig) -> list[list[Completion]]:
        from vllm import SamplingParams

        params = SamplingParams(
            n=cfg.n,
            temperature=cfg.temperature,
            top_p=cfg.top_p,
            max_tokens=cfg.max_new_tokens,
            seed=cfg.seed,
            stop=list(cfg.stop) or None,
        )
        tokenizer = self.llm.get_tokenizer()
        outputs = self.llm.generate([in_chat_template(tokenizer, p, self.chat) for p in prompts], params)
        return [[Completion(o.text, len(o.token_ids)) for o in out.outputs] for out in outputs]
