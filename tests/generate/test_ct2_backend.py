"""ct2 backend on the tiny random Llama, converted to ctranslate2 int8 in a tmp cache (no mocks)."""

from __future__ import annotations

import pytest

pytest.importorskip("ctranslate2")

from prmkit.generate.backends import BackendOptions, SamplingConfig, make_backend
from prmkit.generate.backends.ct2 import CT2Backend, convert_to_ct2

PROMPTS = ["Tom has 3 apples", "Sam eats one and the price is 12 dollars"]


@pytest.fixture(scope="module")
def ct2_cache(tmp_path_factory, tiny_base, monkeypatch_module):
    cache = tmp_path_factory.mktemp("prmkit_cache")
    monkeypatch_module.setenv("PRMKIT_CACHE", str(cache))
    return cache


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as mp:
        yield mp


@pytest.mark.parametrize("share_prefix", [True, False])
def test_n_completions_in_prompt_order_within_max_new_tokens(ct2_cache, tiny_base, share_prefix):
    backend = CT2Backend(tiny_base, BackendOptions(), threads=1, share_prefix=share_prefix)
    out = backend.generate(PROMPTS, SamplingConfig(n=3, max_new_tokens=5, seed=1))
    assert [len(cs) for cs in out] == [3, 3]
    assert all(0 < c.tokens <= 5 for cs in out for c in cs)
    greedy = SamplingConfig(n=1, top_p=1e-9, max_new_tokens=5, seed=1)  # top-p ~ 0 keeps only the argmax
    alone = [backend.generate([p], greedy)[0][0].text for p in PROMPTS]
    assert [cs[0].text for cs in backend.generate(PROMPTS, greedy)] == alone  # order follows the prompts
    assert alone[0] != alone[1]


def test_same_seed_same_output_and_stop_strings(ct2_cache, tiny_base):
    backend = make_backend("ct2", tiny_base, BackendOptions())
    cfg = SamplingConfig(n=6, max_new_tokens=12, seed=3)
    first = [c.text for c in backend.generate(["Hello"], cfg)[0]]
    assert first == [c.text for c in backend.generate(["Hello"], cfg)[0]] and len(set(first)) > 1
    other = [c.text for c in backend.generate(["Hello"], SamplingConfig(n=6, max_new_tokens=12, seed=4))[0]]
    assert other != first
    stop = next(c for c in first if len(c) > 3)[2:4]
    cut = backend.generate(["Hello"], SamplingConfig(n=6, max_new_tokens=12, seed=3, stop=(stop,)))[0]
    assert all(stop not in c.text for c in cut) and any(len(c.text) < len(f) for c, f in zip(cut, first, strict=True))


def test_conversion_is_cached(ct2_cache, tiny_base):
    first = convert_to_ct2(tiny_base, "int8")
    stamp = (first / "model.bin").stat().st_mtime_ns
    assert convert_to_ct2(tiny_base, "int8") == first and (first / "model.bin").stat().st_mtime_ns == stamp
    assert first.parent == ct2_cache / "ct2" and not list(first.parent.glob(".*"))
