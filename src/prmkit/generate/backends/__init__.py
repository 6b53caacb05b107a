"""Generation backends behind one interface, chosen through `BACKENDS` ({name: constructor})."""

from collections.abc import Callable
from functools import partial
from importlib import import_module
from typing import Any

from prmkit.generate.backends.base import Backend, BackendOptions, Completion, PromptBackend, SamplingConfig, row_seed

__all__ = ["BACKENDS", "Backend", "BackendOptions", "Completion", "PromptBackend", "SamplingConfig", "make_backend",
           "row_seed"]


def _construct(module: str, cls: str, model: Any, options: BackendOptions) -> Backend:
    """`cls` of `prmkit.generate.backends.<module>`, imported on first call (torch, vLLM, ctranslate2 load then)."""
    return getattr(import_module(f"prmkit.generate.backends.{module}"), cls)(model, options)


BACKENDS: dict[str, Callable[[Any, BackendOptions], Backend]] = {
    "transformers": partial(_construct, "hf", "TransformersBackend"),
    "vllm": partial(_construct, "vllm", "VLLMBackend"),
    "openai": partial(_construct, "openai", "OpenAIBackend"),
    "ct2": partial(_construct, "ct2", "CT2Backend"),
}


def make_backend(name: str, model: Any, options: BackendOptions | None = None) -> Backend:
    if name not in BACKENDS:
        raise ValueError(f"unknown backend '{name}'; known: {', '.join(BACKENDS)}")
    return BACKENDS[name](model, options or BackendOptions())
