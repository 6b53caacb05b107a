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
    whole = backend.generate(["Hello"], cfg)[0]
    first = [c.text for c in whole]
    assert first == [c.text for c in backend.generate(["Hello"], cfg)[0]] and len(set(first)) > 1
    other = [c.text for c in backend.generate(["Hello"], SamplingConfig(n=6, max_new_tokens=12, seed=4))[0]]
    assert other != first
    stop = next(c for c in first if len(c) > 3)[2:4]
    cut = backend.generate(["Hello"], SamplingConfig(n=6, max_new_tokens=12, seed=3, stop=(stop,)))[0]
    assert all(stop not in c.text for c in cut) and any(len(c.text) < len(f) for c, f in zip(cut, first, strict=True))
    # a row stops decoding at its stop string (it leaves the batch): fewer tokens, and it says which stop ended it
    stopped = [c for c in cut if c.stopped_at == stop]
    assert stopped and all(c.stopped_at in (None, stop) for c in cut)
    assert sum(c.tokens for c in cut) < sum(c.tokens for c in whole)


def test_conversion_is_cached(ct2_cache, tiny_base):
    first = convert_to_ct2(tiny_base, "int8")
    stamp = (first / "model.bin").stat().st_mtime_ns
    assert convert_to_ct2(tiny_base, "int8") == first and (first / "model.bin").stat().st_mtime_ns == stamp
    assert first.parent == ct2_cache / "ct2" and not list(first.parent.glob(".*"))


def test_rollouts_on_ct2_are_seeded_and_k_distinct(ct2_cache, tiny_model_dir):
    from prmkit.data.demo_pools import demo_pools
    from prmkit.generate import prefix_requests, rollout_prefixes

    backend = make_backend("ct2", tiny_model_dir, BackendOptions())
    requests = prefix_requests(demo_pools(1))[:3]
    cfg = SamplingConfig(n=3, max_new_tokens=6, seed=5)

    def texts(seed: int) -> dict[str, list[str]]:
        stats = rollout_prefixes(requests, backend, SamplingConfig(**{**cfg.__dict__, "seed": seed}),
                                 prefixes_per_batch=3)
        assert stats.rollouts == 9 and 0 < stats.tokens_generated <= 9 * 6
        return {r.prefix_id: [c.text for c in r.continuations] for r in stats.records}

    first = texts(5)
    assert list(first) == [r.prefix_id for r in requests] and texts(5) == first
    assert all(len(set(ts)) > 1 for ts in first.values())  # K samples, not K copies
    assert texts(6) != first


def test_cli_rollout_with_ct2(ct2_cache, tiny_model_dir, tmp_path, capsys):
    import json

    from prmkit.cli.main import main

    out = tmp_path / "rollouts.jsonl"
    argv = ["rollout", "--input", "demo", "--limit", "1", "--positions", "0", "1", "--backend", "ct2", "--model",
            tiny_model_dir, "--k", "2", "--max-new-tokens", "4", "--output", str(out), "--quiet"]
    assert main(argv) == 0
    records = [json.loads(ln) for ln in out.read_text().splitlines()]
    assert [r["prefix_steps"] for r in records] == [0] + [1] * (len(records) - 1) and len(records) > 1
    assert all(len(r["continuations"]) == 2 for r in records)
    assert f"{len(records)} prefixes, {2 * len(records)} rollouts" in capsys.readouterr().out
