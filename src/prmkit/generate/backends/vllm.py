"""vLLM backend (`prmkit[vllm]`, GPU): one engine call per call, row k of prompt i its own request seeded
`row_seed(seeds[i], k)`, so a prefix's samples do not depend on its batch (prefix caching shares the prefill).
vLLM's random stream is not prmkit's: the same seed samples otherwise than on the transformers backend."""

from typing import Any

from prmkit.generate.backends.base import BackendOptions, ChatPrompts, Completion, SamplingConfig, row_seed

__all__ = ["VLLMBackend"]


class VLLMBackend(ChatPrompts):
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
        self.tokenizer = self.llm.get_tokenizer()
        self.chat = options.chat

    def generate(self, prompts: list[str], cfg: SamplingConfig) -> list[list[Completion]]:
        """cfg.n samples of each prompt; row r of the call (prompt r // n) seeded `row_seed(cfg.seed, r)`, as the
        transformers backend's `generate` seeds its rows."""
        seeds = [row_seed(cfg.seed, r) for r in range(len(prompts) * cfg.n)]
        return self._sample([self.render(p) for p in prompts], cfg, seeds)

    def context_length(self) -> int | None:
        return self.llm.llm_engine.model_config.max_model_len

    def generate_rendered(self, prompts: list[str], cfg: SamplingConfig, seeds: list[int]) -> list[list[Completion]]:
        return self._sample(prompts, cfg, [row_seed(s, k) for s in seeds for k in range(cfg.n)])

    def _sample(self, prompts: list[str], cfg: SamplingConfig, row_seeds: list[int]) -> list[list[Completion]]:
        """One `LLM.generate` over the rows (each prompt n times, row r seeded `row_seeds[r]`), outputs in row order."""
        from vllm import SamplingParams

        n = cfg.n
        rows = [p for p in prompts for _ in range(n)]
        params = [SamplingParams(n=1, temperature=cfg.temperature, top_p=cfg.top_p, max_tokens=cfg.max_new_tokens,
                                 seed=s, stop=list(cfg.stop) or None) for s in row_seeds]
        outputs = self.llm.generate(rows, params, use_tqdm=False)
        if len(outputs) != len(rows):
            raise RuntimeError(f"vLLM returned {len(outputs)} outputs for {len(rows)} rows")
        done = [_completion(out.outputs[0]) for out in outputs]
        return [done[i * n : (i + 1) * n] for i in range(len(prompts))]


def _completion(output: Any) -> Completion:
    """A vLLM `CompletionOutput` as a Completion: its text (vLLM drops the stop string), its generated tokens, and
    the stop string that ended it (`stop_reason` is that string, a stop token id, or None at end of sequence)."""
    stop = output.stop_reason if isinstance(output.stop_reason, str) else None
    return Completion(output.text, len(output.token_ids), stop)
