"""Shared fixtures: a tiny random Llama (2 layers, hidden 64) with a BPE tokenizer trained in memory (no download)."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import make_tiny_base


@pytest.fixture(scope="session")
def tiny_base(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(make_tiny_base(tmp_path_factory.mktemp("tiny_base")))


@pytest.fixture(scope="session")
def tiny_lm(tiny_base: str):
    """(model, tokenizer) of the tiny base, in eval mode."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    return AutoModelForCausalLM.from_pretrained(tiny_base).eval(), AutoTokenizer.from_pretrained(tiny_base)


@pytest.fixture(scope="session")
def shared() -> Path:
    """The ../shared folder beside the checkout (real data); tests that need it skip without it."""
    path = Path(__file__).resolve().parents[1].parent / "shared"
    if not (path / "data/gsm8k").is_dir():
        pytest.skip("../shared/data/gsm8k is not present")
    return path


@pytest.fixture(scope="session")
def ray_cluster():
    """One local Ray cluster for the session (2 CPUs, small object store, quiet); skips without Ray."""
    ray = pytest.importorskip("ray")
    from prmkit.generate.distributed import ray_init

    ray_init("local", num_cpus=2)
    yield ray
    ray.shutdown()
