"""transformers backend: batched sampling with left padding on `inference_device()` (float32 on a CPU, bfloat16 on a
GPU unless `dtype` says otherwise). Each distinct prompt is prefilled once for its K rows, and the tokens all prompts
of a batch share once (`shared_prefill`)."""

from typing import Any

from prmkit.generate.backends.base import (
    BackendOptions,
    ChatPrompts,
    Completion,
    SamplingConfig,
    row_seed,
    split_at_stop,
)
from prmkit.generate.backends.prefix_cache import PrefixCache, cache_plan, common_prefix

__all__ = ["TransformersBackend", "cache_name", "prefill_columns", "shared_prefill"]


def shared_prefill(model: Any, prompts: list[list[int]], pad: int, name: str) -> tuple[Any, Any, Any, int]:
    """Prefill distinct prompts (token id lists): (ids (D, T), mask (D, T), the KV cache of all but the last column,
    tokens run). The tokens every prompt starts with run once on one row, their cache repeated; each prompt's rest runs
    left-padded after them ([common | padding | rest], mask 0 on the padding)."""
    import torch
    from transformers import DynamicCache

    heads = [p[:-1] for p in prompts]
    common = min(common_prefix(heads[0], h) for h in heads) if len(prompts) > 1 else 0
    rests = [p[common:] for p in prompts]  # each holds at least its last token
    width = max(map(len, rests))
    device = model.device
    ids = torch.tensor([prompts[0][:common] + [pad] * (width - len(r)) + r for r in rests], device=device)
    mask = torch.tensor([[1] * common + [0] * (width - len(r)) + [1] * len(r) for r in rests], device=device)  # (D, T)
    cache = DynamicCache(config=model.config)
    if common:
        with torch.inference_mode():  # the cache is all a prefill is for: the LM head runs on one position only
            model(input_ids=ids[:1, :common], use_cache=True, logits_to_keep=1, **{name: cache})
            cache.batch_repeat_interleave(len(prompts))
    return ids, mask, cache, common + prefill_columns(model, ids, mask, cache, common, name)


def prefill_columns(model: Any, ids: Any, mask: Any, cache: Any, start: int, name: str) -> int:
    """Run the columns `start`..T-2 of a left-padded batch `ids` (B, T) into `cache` (positions from `mask`; the
    LM head on one position only); returns the tokens run (padding excluded)."""
    import torch

    if ids.shape[1] - 1 <= start:
        return 0
    positions = (mask.cumsum(-1) - 1).clamp(min=0)[:, start:-1]
    with torch.inference_mode():
        model(input_ids=ids[:, start:-1], attention_mask=mask[:, :-1], position_ids=positions, use_cache=True,
              logits_to_keep=1, **{name: cache})
    return int(mask[:, start:-1].sum())


def cache_name(model: Any) -> str:
    """The keyword of the KV cache in `model`'s forward and generate calls and the field of their outputs: "cache"
    where transformers has renamed it (5.x, where `past_key_values` warns on every call), else "past_key_values"."""
    import inspect

    return "cache" if "cache" in inspect.signature(model.forward).parameters else "past_key_values"


class TransformersBackend(ChatPrompts):
    name = "transformers"

    def __init__(self, model: str | tuple[Any, Any], options: BackendOptions | None = None):
        options = options or BackendOptions()
        if isinstance(model, str):
            from prmkit.models.device import default_dtype, inference_device
            from prmkit.models.loading import load_model

            model = load_model(model, options.dtype or default_dtype(inference_device()))
        self.model, self.tokenizer = model
        self.tokenizer.padding_side = "left"
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.batch_size, self.chat = options.batch_size, options.chat
        self.tokens_prefilled = 0
        self.prefix_cache = PrefixCache() if options.prefix_cache else None
        self._cache = cache_name(self.model)

    def context_length(self) -> int | None:
        return getattr(self.model.config, "max_position_embeddings", None)

    def generate(self, prompts: list[str], cfg: SamplingConfig) -> list[list[Completion]]:
        flat = [self.format_prompt(p) for p in prompts for _ in range(cfg.n)]
        seeds = [row_seed(cfg.seed, r) for r in range(len(flat))]  # row r of the call
        done: list[Completion] = []
        for i in range(0, len(flat), self.batch_size):
            done += self._batch(flat[i : i + self.batch_size], cfg, seeds[i : i + self.batch_size])
        return [done[k * cfg.n : (k + 1) * cfg.n] for k in range(len(prompts))]

    def _batch(self, prompts: list[str], cfg: SamplingConfig, seeds: list[int]) -> list[Completion]:
        """Sample one completion per prompt, row i seeded `seeds[i]`: each distinct prompt is prefilled once (K
        copies of a prompt share its KV cache) and a row leaves the batch when done (`decode_rows`)."""
        from prmkit.generate.backends.decode import decode_rows

        ids, mask, cache = self.prefill_distinct(prompts)
        rows = decode_rows(self.model, self.tokenizer, ids[:, -1], mask, cache, cfg, seeds, self._cache)
        return self._decode(rows, cfg)

    def prefill_distinct(self, prompts: list[str]) -> tuple[Any, Any, Any]:
        """(ids, mask, cache) of `prompts` (B, T), the cache holding all but the last column: the distinct prompts
        prefilled by `shared_prefill`, their cache rows repeated for a prompt's copies."""
        import torch

        distinct = list(dict.fromkeys(prompts))
        ids, mask, cache, ran = shared_prefill(self.model, self.tokenizer(distinct)["input_ids"],
                                               self.tokenizer.pad_token_id, self._cache)
        self.tokens_prefilled += ran
        row_of = {p: i for i, p in enumerate(distinct)}
        index = torch.tensor([row_of[p] for p in prompts], device=ids.device)
        if ids.shape[1] > 1:
            cache.batch_select_indices(index)
        return ids[index], mask[index], cache

    def generate_rendered(self, prompts: list[str], cfg: SamplingConfig, seeds: list[int]) -> list[list[Completion]]:
        """cfg.n samples of each verbatim prompt, batch_size // n prompts per batch (at least one)."""
        per = max(1, self.batch_size // cfg.n)
        out: list[list[Completion]] = []
        for i in range(0, len(prompts), per):
            out += self._prefilled_batch(prompts[i : i + per], cfg, seeds[i : i + per])
        if self.prefix_cache is not None:
            self.prefix_cache.commit()
        return out

    def _prefilled_batch(self, prompts: list[str], cfg: SamplingConfig, seeds: list[int]) -> list[list[Completion]]:
        from transformers import DynamicCache

        from prmkit.generate.backends.decode import decode_rows

        tok, n = self.tokenizer, cfg.n
        row_seeds = [row_seed(s, k) for s in seeds for k in range(n)]
        if self.prefix_cache is None:  # rows leave the batch when done (nothing keeps their cache)
            done = self._batch([p for p in prompts for _ in range(n)], cfg, row_seeds)  # K rows a prompt
            self.tokens_prefilled += n * len(prompts)  # each prompt's last token, fed to its K rows
            return [done[k * n : (k + 1) * n] for k in range(len(prompts))]
        enc = tok(prompts, return_tensors="pt", padding=True)
        ids, mask = enc["input_ids"].to(self.model.device), enc["attention_mask"].to(self.model.device)  # (P, T)
        lengths = mask.sum(-1).tolist()
        width = ids.shape[1]
        real = [ids[i, width - t:].tolist() for i, t in enumerate(lengths)]
        span, cache = 0, DynamicCache(config=self.model.config)
        if self.prefix_cache.rows:
            hits = [self.prefix_cache.lookup(r) for r in real]
            span, used = cache_plan(lengths, [h[0] for h in hits])
            if span:
                cache = self.prefix_cache.build(self.model.config, [h[1] for h in hits], used, span, ids)
        # all but the last token, once per distinct prompt, past the cached span
        self.tokens_prefilled += prefill_columns(self.model, ids, mask, cache, span, self._cache)
        if width > 1:
            cache.batch_repeat_interleave(n)
        self.tokens_prefilled += n * int(mask[:, -1].sum())  # each prompt's last token, fed to its K rows
        rows = decode_rows(self.model, tok, ids[:, -1].repeat_interleave(n), mask.repeat_interleave(n, 0), cache,
                           cfg, row_seeds, self._cache, keep_rows=True)  # every row's cache is stored below
        done = self._decode(rows, cfg)
        self.prefix_cache.store(cache, [real[r // n] + rows[r][:c.tokens] for r, c in enumerate(done)],
                                [width - lengths[r // n] for r in range(len(done))])
        return [done[k * n : (k + 1) * n] for k in range(len(prompts))]

    def _decode(self, rows: list[list[int]], cfg: SamplingConfig) -> list[Completion]:
        """Completions of the rows of `decode_rows` (each ends at its end of sequence, stop string or token limit);
        `tokens` counts what the model generated: the row, up to a sampled pad token that is not the end of
        sequence, less an end of sequence after the stop string the text is cut at."""
        tok = self.tokenizer
        result = []
        for row in rows:
            n = len(row)
            if tok.pad_token_id != tok.eos_token_id:
                n = next((k for k, t in enumerate(row) if t == tok.pad_token_id), n)
            text = tok.decode(row[:n], skip_special_tokens=True)
            kept, stopped_at = split_at_stop(text, cfg.stop)
            if stopped_at is not None and n and row[n - 1] == tok.eos_token_id:
                n -= 1
            result.append(Completion(kept, n, stopped_at))
        return result
