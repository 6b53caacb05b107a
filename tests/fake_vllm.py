"""A stand-in for the `vllm` package on a CPU: `LLM(model, dtype).generate(prompts, sampling_params)` with vLLM's
contract (one `SamplingParams` or one per prompt; one `RequestOutput` per prompt, in the prompts' order, holding
`n` `CompletionOutput`s; a stop string cut from the text and named in `stop_reason`), shaped as in vllm/outputs.py
and vllm/sampling_params.py. Its samples are a function of (prompt, seed, sample index) alone (`fake_text`), so a
test can tell which prompt and which seed each output came from.

    fake = install(monkeypatch)          # sys.modules["vllm"] is this module until the test ends
    backend = make_backend("vllm", "fake-model", BackendOptions(chat=False))
    backend.llm.calls                    # [[(prompt, SamplingParams), ...] per generate call]
"""

from __future__ import annotations

import hashlib
import re
import sys
import types
import zlib
from dataclasses import dataclass
from typing import Any, ClassVar


@dataclass
class SamplingParams:
    n: int = 1
    temperature: float = 1.0
    top_p: float = 1.0
    max_tokens: int | None = 16
    seed: int | None = None
    stop: list[str] | None = None


@dataclass
class CompletionOutput:
    index: int
    text: str
    token_ids: list[int]
    cumulative_logprob: float | None = None
    logprobs: Any = None
    finish_reason: str | None = None
    stop_reason: int | str | None = None


@dataclass
class RequestOutput:
    request_id: str
    prompt: str
    prompt_token_ids: list[int] | None
    prompt_logprobs: Any
    outputs: list[CompletionOutput]
    finished: bool = True


def fake_text(prompt: str, seed: int | None, index: int = 0) -> str:
    """The fake's sample: names its prompt (a checksum) and seed, and answers the last number of the prompt for
    about half the (seed, index) pairs, else -1 (so right and wrong answers both occur)."""
    numbers = re.findall(r"-?\d+", prompt)
    coin = hashlib.sha256(f"{seed}:{index}".encode()).digest()[0] % 2  # not a CRC: its parity is linear in its input
    answer = numbers[-1] if numbers and coin == 0 else "-1"
    return f" fake {zlib.crc32(prompt.encode())}:{seed}:{index} [STEP] The answer is {answer}.\nQuestion: more"


class _Tokenizer:
    """Words as tokens; no chat template."""

    chat_template = None

    def __call__(self, text: str) -> dict[str, list[int]]:
        return {"input_ids": list(range(len(text.split())))}


class LLM:
    instances: ClassVar[list[LLM]] = []

    def __init__(self, model: str, dtype: str = "auto", **kwargs: Any):
        self.model, self.dtype = model, dtype
        self.calls: list[list[tuple[str, SamplingParams]]] = []
        self.llm_engine = types.SimpleNamespace(model_config=types.SimpleNamespace(max_model_len=4096))
        LLM.instances.append(self)

    def get_tokenizer(self) -> _Tokenizer:
        return _Tokenizer()

    def generate(self, prompts: list[str], sampling_params: SamplingParams | list[SamplingParams] | None = None,
                 use_tqdm: bool = True) -> list[RequestOutput]:
        params = sampling_params if isinstance(sampling_params, list) else [sampling_params or SamplingParams()] * len(
            prompts)
        if len(params) != len(prompts):
            raise ValueError("the lengths of prompts and sampling_params must be the same")
        self.calls.append(list(zip(prompts, params, strict=True)))
        return [RequestOutput(str(i), p, None, None, [_output(p, sp, j) for j in range(sp.n)])
                for i, (p, sp) in enumerate(zip(prompts, params, strict=True))]


def _output(prompt: str, params: SamplingParams, index: int) -> CompletionOutput:
    text, stop = fake_text(prompt, params.seed, index), None
    for s in params.stop or ():
        if s in text:
            text, stop = text[: text.index(s)], s
    return CompletionOutput(index, text, list(range(len(text.split()))), finish_reason="stop" if stop else "length",
                            stop_reason=stop)


def install(monkeypatch: Any) -> types.ModuleType:
    """Make `import vllm` give this module for the rest of the test."""
    module = sys.modules[__name__]
    LLM.instances.clear()
    monkeypatch.setitem(sys.modules, "vllm", module)
    return module


__all__ = ["LLM", "CompletionOutput", "RequestOutput", "SamplingParams", "fake_text", "install"]
