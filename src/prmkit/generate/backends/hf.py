"""transformers backend: batched sampling on CPU or GPU with left padding (the embedded model by default).

Prompts are repeated K times and generated `batch_size` sequences at a time; left padding keeps every
prompt's last token next to its first generated token, so batched and one-at-a-time sampling agree.
When a batch holds K copies of one prompt (the usual case), the prompt is encoded once and its KV cache
is copied K times, so a long few-shot prompt costs one prefill instead of K.
"""

from __future__ import annotations

from typing import Any

from prmkit.generate.backends.base import BackendOptions, Completion, SamplingConfig, cut_at_stop
from prmkit.generate.prompts import in_chat_template

__all__ = ["TransformersBackend"]


class TransformersBackend:
    name = "transformers"

    def __init__(self, model: str | tuple[Any, Any], options: BackendOptions | None = None):
        options = options or BackendOptions()
        if isinstance(model, str):
            from prmkit.models.loading import load_model

            model = load_model(model, options.dtype or "float32")
        self.model, self.tokenizer = model
        self.tokenizer.padding_side = "left"
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.batch_size = options.batch_size
        self.chat = options.chat

    def format_prompt(self, prompt: str) -> str:
        """The prompt in the model's chat template when it is a few-shot Q/A prompt and chat is on."""
        return in_chat_template(self.tokenizer, prompt, self.chat)

    def generate(self, prompts: list[str], cfg: SamplingConfig) -> list[list[Completion]]:
        import torch

        torch.manual_seed(cfg.seed)
        flat = [self.format_prompt(p) for p in prompts for _ in range(cfg.n)]
        done: list[Completion] = []
        for i in range(0, len(flat), self.batch_size):
            done += self._batch(flat[i : i + self.batch_size], cfg)
        return [done[k * cfg.n : (k + 1) * cfg.n] for k in range(len(prompts))]

    def _batch(self, prompts: list[str], cfg: SamplingConfig) -> list[Completion]:
        import torch

        tok = self.tokenizer
        enc = dict(tok(prompts, return_tensors="pt", padding=True))
        if len(prompts) > 1 and len(set(prompts)) == 1 and enc["input_ids"].shape[1] > 1:
            enc["past_key_values"] = self._shared_prefill(enc["input_ids"][:1], len(prompts))
        with torch.inference_mode():
            out = self.model.generate(
                **enc,
                do_sample=True,
                temperature=cfg.temperature,
                top_p=cfg.top_p,
                top_k=0,
                max_new_tokens=cfg.max_new_tokens,
                pad_token_id=tok.pad_token_id,
                stop_strings=list(cfg.stop) or None,
                tokenizer=tok,
            )
        new = out[:, enc["input_ids"].shape[1] :]  # (B, T_new)
        return self._decode(new.tolist(), cfg)

    def _shared_prefill(self, ids: Any, copies: int) -> Any:
        """KV cache of all but the prompt's last token, computed once and repeated `copies` times."""
        import torch
        from transformers import DynamicCache

        cache = DynamicCache(config=self.model.config)
        with torch.inference_mode():
            self.model(input_ids=ids[:, :-1], past_key_values=cache, use_cache=True)
        cache.batch_repeat_interleave(copies)
        return cache

    def _decode(self, rows: list[list[int]], cfg: SamplingConfig) -> list[Completion]:
        tok = self.tokenizer
        result = []
        for row in rows:
            n = next((k + 1 for k, t in enumerate(row) if t == tok.eos_token_id), len(row))
            if tok.pad_token_id != tok.eos_token_id:
                n = min(n, next((k for k, t in enumerate(row) if t == tok.pad_token_id), n))
            text = tok.decode(row[:n], skip_special_tokens=True)
            result.append(Completion(cut_at_stop(text, cfg.stop), n))
        return result
