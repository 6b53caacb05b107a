"""Generation backends behind one interface, chosen through `BACKENDS` ({name: constructor})."""

from __future__ import annotations

from collections.abc import Callable
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


def _transformers(model: Any, options: BackendOptions) -> Backend:
    from prmkit.generate.backends.hf import TransformersBackend

    return TransformersBackend(model, options)


def _vllm(model: Any, options: BackendOptions) -> Backend:
    from prmkit.generate.backends.vllm import VLLMBackend

    return VLLMBackend(model, options)


def _openai(model: Any, options: BackendOptions) -> Backend:
    from prmkit.generate.backends.openai import OpenAIBackend

    return OpenAIBackend(model, options)


def _ct2(model: Any, options: BackendOptions) -> Backend:
    from prmkit.generate.backends.ct2 import CT2Backend

    return CT2Backend(model, options)


BACKENDS: dict[str, Callable[[Any, BackendOptions], Backend]] = {
    "transformers": _transformers,
    "vllm": _vllm,
    "openai": _openai,
    "ct2": _ct2,
}


def make_backend(name: str, model: Any, options: BackendOptions | None = None) -> Backend:
    if name not in BACKENDS:
        raise ValueError(f"unknown backend '{name}'; known: {', '.join(BACKENDS)}")
    return BACKENDS[name](model, options or BackendOptions())
