"""CTranslate2 backend: int8 CPU sampling of a Llama-family HF checkpoint, converted once under `cache_dir()/ct2/`.
A prompt's K samples share one prefill (`num_hypotheses`; `static_prompt` is not used: 4.8.5 force-decodes past the
shortest prompt). ctranslate2 has no per-row seed, so a call is seeded from all its prompts' seeds."""

import hashlib
import json
import os
import random
import zlib
from pathlib import Path
from typing import Any

from prmkit.generate.backends.base import BackendOptions, ChatPrompts, Completion, SamplingConfig, split_at_stop

__all__ = ["CT2Backend", "compute_type", "convert_to_ct2"]


def compute_type(dtype: str | None) -> str:
    """The quantization and compute type for `--dtype` (None: int8), checked against this CPU before anything is
    converted or loaded."""
    import ctranslate2

    chosen = dtype or "int8"
    supported = ctranslate2.get_supported_compute_types("cpu")
    if chosen not in supported:
        raise ValueError(f"the ct2 backend cannot compute in {chosen} on this CPU (it supports "
                         f"{', '.join(sorted(supported))}); leave --dtype unset for a ct2 model (int8) or give one "
                         "of those")
    return chosen


def convert_to_ct2(model: str | os.PathLike[str], quantization: str = "int8") -> Path:
    """The ctranslate2 model directory for an embedded name or HF directory, converted on first use only."""
    from prmkit.models.loading import EMBEDDED, cache_dir, convert_once, resolve_model

    source = resolve_model(model)
    digest = hashlib.sha1(str(source.resolve()).encode()).hexdigest()[:8]
    name = str(model) if str(model) in EMBEDDED else f"{source.name}-{digest}"
    target = cache_dir() / "ct2" / f"{name}-{quantization}"
    if (target / "model.bin").is_file():
        return target
    from ctranslate2.converters import TransformersConverter

    def write(tmp: Path) -> None:
        TransformersConverter(str(source), load_as_float16=False).convert(str(tmp), quantization=quantization,
                                                                          force=True)
        _fill_missing_tokens(tmp / "config.json")

    convert_once(target, "model.bin", write)
    return target


def _fill_missing_tokens(config: Path) -> None:
    """ctranslate2 refuses a null bos/unk token (a tokenizer without them): use the end token in their place."""
    data = json.loads(config.read_text(encoding="utf-8"))
    for key in ("bos_token", "unk_token"):
        if data.get(key) is None:
            data[key] = data["eos_token"]
    config.write_text(json.dumps(data, indent=2), encoding="utf-8")


class CT2Backend(ChatPrompts):
    name = "ct2"

    def __init__(self, model: str | tuple[Any, Any], options: BackendOptions | None = None,
                 threads: int = 2, share_prefix: bool = True):
        import ctranslate2  # noqa: F401  (fails early when it is not installed)
        from transformers import AutoTokenizer

        from prmkit.models.loading import context_length, resolve_model

        options = options or BackendOptions()
        if not isinstance(model, str):
            raise TypeError("the ct2 backend needs a model name or HF directory, not a loaded model")
        quantization = compute_type(options.dtype)
        self.tokenizer = AutoTokenizer.from_pretrained(resolve_model(model))
        self._context = context_length(model)
        self._path = str(convert_to_ct2(model, quantization))
        self._settings = dict(device="cpu", compute_type=quantization, intra_threads=threads, inter_threads=1)
        self.chat, self.batch_size, self.share_prefix = options.chat, options.batch_size, share_prefix

    def context_length(self) -> int | None:
        return self._context

    def generate(self, prompts: list[str], cfg: SamplingConfig) -> list[list[Completion]]:
        return self._sample([self.format_prompt(p) for p in prompts], cfg, cfg.seed)

    def generate_rendered(self, prompts: list[str], cfg: SamplingConfig, seeds: list[int]) -> list[list[Completion]]:
        """cfg.n samples of each verbatim prompt; the call is seeded from all of `seeds`."""
        return self._sample(prompts, cfg, zlib.crc32(",".join(map(str, seeds)).encode()))

    def _sample(self, texts: list[str], cfg: SamplingConfig, seed: int) -> list[list[Completion]]:
        import ctranslate2

        # a worker thread seeds its generator at its first sample: new threads, so the seed holds
        ctranslate2.set_random_seed(seed)
        generator = ctranslate2.Generator(self._path, **self._settings)
        tokens = [self.tokenizer.convert_ids_to_tokens(self.tokenizer(t).input_ids) for t in texts]
        options = dict(max_length=cfg.max_new_tokens, include_prompt_in_result=False, sampling_topk=0,
                       sampling_topp=cfg.top_p, sampling_temperature=cfg.temperature,
                       end_token=self.tokenizer.eos_token)
        if cfg.stop:
            options["callback"] = self._stopper(cfg.stop)
        if self.share_prefix:
            # ctranslate2 sorts a prompt's hypotheses by likelihood: a seeded shuffle makes the first k of them random
            results = generator.generate_batch(tokens, num_hypotheses=cfg.n,
                                               max_batch_size=max(1, self.batch_size // cfg.n), **options)
            rows = [list(r.sequences_ids) for r in results]
            for i, row in enumerate(rows):
                random.Random(seed * 1_000_003 + i).shuffle(row)
        else:
            flat = [t for t in tokens for _ in range(cfg.n)]
            results = generator.generate_batch(flat, max_batch_size=self.batch_size, **options)
            ids = [r.sequences_ids[0] for r in results]
            rows = [ids[k * cfg.n : (k + 1) * cfg.n] for k in range(len(texts))]
        return [[self._completion(r, cfg) for r in row] for row in rows]

    def _stopper(self, stops: tuple[str, ...]) -> Any:
        """A step callback that ends a row once its text holds a stop string, so finished rows leave the batch
        instead of decoding to `max_length`; the text is cut at the stop string afterwards."""
        tails: dict[tuple[int, int], str] = {}
        keep = max(map(len, stops)) + 32
        to_text = self.tokenizer.convert_tokens_to_string

        def callback(step: Any) -> bool:
            key = (step.batch_id, step.hypothesis_id)
            tails[key] = (tails.get(key, "") + to_text([step.token]))[-keep:]
            return any(stop in tails[key] for stop in stops)

        return callback

    def _completion(self, ids: list[int], cfg: SamplingConfig) -> Completion:
        text, stopped_at = split_at_stop(self.tokenizer.decode(ids, skip_special_tokens=True), cfg.stop)
        return Completion(text, len(ids), stopped_at)
