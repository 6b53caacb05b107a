"""Generation backends behind one interface, chosen through `BACKENDS` ({name: constructor})."""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import Any

from prmkit.generate.backends.base import Backend, BackendOptions, Completion, PromptBackend, SamplingConfig, row_seed

__all__ = [
    "BACKENDS",
    "Backend",
    "BackendOptions",
    "Completion",
    "PromptBackend",
    "SamplingConfig",
    "make_backend",
    "row_seed",
]


def _lazy(module: str, cls: str) -> Callable[[Any, BackendOptions], Backend]:
    """The constructor `cls` of `prmkit.generate.backends.<module>`, imported on first call (torch, vLLM, ctranslate2
    load only then)."""
    def construct(model: Any, options: BackendOptions) -> Backend:
        return getattr(import_module(f"prmkit.generate.backends.{module}"), cls)(model, options)

    construct.__doc__ = f"prmkit.generate.backends.{module}.{cls}"
    return construct


BACKENDS: dict[str, Callable[[Any, BackendOptions], Backend]] = {
    "transformers": _lazy("hf", "TransformersBackend"),
    "vllm": _lazy("vllm", "VLLMBackend"),
    "openai": _lazy("openai", "OpenAIBackend"),
    "ct2": _lazy("ct2", "CT2Backend"),
}


def make_backend(name: str, model: Any, options: BackendOptions | None = None) -> Backend:
    if name not in BACKENDS:
        raise ValueError(f"unknown backend '{name}'; known: {', '.join(BACKENDS)}")
    return BACKENDS[name](model, options or BackendOptions())
