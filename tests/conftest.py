"""Shared fixtures: a tiny random Llama (2 layers, hidden 64) with a BPE tokenizer trained in memory (no download).

The suite never writes into the user's model cache: `PRMKIT_CACHE` points at a temporary directory for the whole
session (set before any test runs), so the embedded model is converted at most once per session and shared by
every test that needs it. When the user's cache already holds a converted copy, its files are hard-linked into
the temporary cache (no copy, no conversion: the suite is no slower than with the real cache); they are only read.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from helpers import make_tiny_base

_SESSION_CACHE: Path | None = None
_SHARED_CACHE = "PRMKIT_TEST_SESSION_CACHE"  # the controller's session cache, for the workers of `pytest -n`


def _link_tree(source: Path, target: Path) -> None:
    """Hard-link every file of `source` into `target` (copy where links are not possible)."""
    for path in source.rglob("*"):
        dest = target / path.relative_to(source)
        if path.is_dir():
            dest.mkdir(parents=True, exist_ok=True)
            continue
        dest.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(path, dest)
        except OSError:
            shutil.copy2(path, dest)


def pytest_configure(config: pytest.Config) -> None:
    global _SESSION_CACHE
    from prmkit.models.loading import cache_dir

    if os.environ.get("PYTEST_XDIST_WORKER") and os.environ.get(_SHARED_CACHE):
        # a worker of `pytest -n`: the controller's session cache (a conversion race keeps one copy, convert_once)
        os.environ["PRMKIT_CACHE"] = os.environ[_SHARED_CACHE]
        _one_thread_each(config)
        return
    user_models = cache_dir() / "models"  # the user's cache, read only
    _SESSION_CACHE = Path(tempfile.mkdtemp(prefix="prmkit-test-cache-"))
    for model in user_models.glob("*/config.json"):
        _link_tree(model.parent, _SESSION_CACHE / "models" / model.parent.name)
    os.environ["PRMKIT_CACHE"] = os.environ[_SHARED_CACHE] = str(_SESSION_CACHE)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Longest work first: `pytest -n` hands its workers tests in collection order, so a long run collected last
    (the wheel's, say) keeps one worker busy while the other idles. The Ray group (one worker, several long tests)
    goes first, then the `slow` end-to-end runs, then the rest, each in collection order."""
    def rank(item: pytest.Item) -> int:
        if any(m.args == ("ray",) for m in item.iter_markers("xdist_group")):
            return 0
        return 1 if item.get_closest_marker("slow") else 2

    items.sort(key=rank)  # stable: the order within each rank is the collection order


def _one_thread_each(config: pytest.Config) -> None:
    """Workers of `pytest -n N` share the cores: each torch (and each CLI it launches) gets cores // N threads,
    so N workers do not oversubscribe the machine."""
    import torch

    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    threads = max(1, (os.cpu_count() or 1) // workers)
    torch.set_num_threads(threads)
    os.environ["OMP_NUM_THREADS"] = str(threads)


def pytest_unconfigure(config: pytest.Config) -> None:
    if _SESSION_CACHE is not None:
        shutil.rmtree(_SESSION_CACHE, ignore_errors=True)


@pytest.fixture
def prmkit_labelers_only(monkeypatch):
    """Only prmkit's own labelers (a test may have registered one of its own: tests/label/step_length.py)."""
    from prmkit.label import registry

    for name, cls in list(registry.LABELERS.items()):
        if not cls.__module__.startswith("prmkit."):
            monkeypatch.delitem(registry.LABELERS, name)


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
