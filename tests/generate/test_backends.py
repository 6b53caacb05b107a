"""Backends: transformers on a tiny random model, OpenAI-compatible against a local HTTP server, vLLM lazily."""

from __future__ import annotations

import json
import threading
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import ClassVar

import pytest

from prmkit.generate.backends import BACKENDS, BackendOptions, SamplingConfig, make_backend


def test_transformers_batched_equals_one_at_a_time(tiny_model_dir):
    backend = make_backend("transformers", tiny_model_dir, BackendOptions(batch_size=4))
    prompts = ["Question: 1 + 1?\nAnswer:", "A much longer prompt, so that left padding matters a lot here:"]
    greedy = SamplingConfig(n=2, top_p=1e-9, max_new_tokens=8, seed=1)  # top-p ~ 0 keeps only the argmax
    batched = backend.generate(prompts, greedy)
    single = make_backend("transformers", tiny_model_dir, BackendOptions(batch_size=1)).generate(
        prompts, greedy
    )
    assert [[c.text for c in cs] for cs in batched] == [[c.text for c in cs] for cs in single]
    assert all(len(cs) == 2 and all(0 < c.tokens <= 8 for c in cs) for cs in batched)


def test_transformers_sampling_varies_and_is_seeded(tiny_model_dir):
    backend = make_backend("transformers", tiny_model_dir, BackendOptions(batch_size=8))
    cfg = SamplingConfig(n=6, max_new_tokens=12, seed=3)
    first = [c.text for c in backend.generate(["Hello"], cfg)[0]]
    again = [c.text for c in backend.generate(["Hello"], cfg)[0]]
    assert first == again and len(set(first)) > 1


class _Server(BaseHTTPRequestHandler):
    requests: ClassVar[list[dict]] = []

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        _Server.requests.append({"path": self.path, **body})
        choices = [
            {"index": i * body["n"] + j, "text": f" {p[-3:]}#{j} [STEP] $42$\nQuestion: next"}
            for i, p in enumerate(body["prompt"])
            for j in range(body["n"])
        ]
        choices.reverse()  # order must come from `index`, not from position
        data = json.dumps({"choices": choices, "usage": {"completion_tokens": 7 * len(choices)}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def test_openai_backend_against_local_server():
    server = HTTPServer(("127.0.0.1", 0), _Server)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_port}"
        backend = make_backend("openai", "served-model", BackendOptions(base_url=url, prompts_per_request=2))
        cfg = SamplingConfig(n=3, max_new_tokens=16, stop=("\nQuestion:",))
        out = backend.generate(["p-aaa", "p-bbb", "p-ccc"], cfg)
    finally:
        server.shutdown()
    assert [[c.text for c in cs] for cs in out] == [
        [f" {s}#{j} [STEP] $42$" for j in range(3)] for s in ("aaa", "bbb", "ccc")
    ]
    assert all(c.tokens == 7 for cs in out for c in cs)
    req = _Server.requests[0]
    assert req["path"] == "/v1/completions" and req["n"] == 3 and req["temperature"] == 1.0
    assert req["top_p"] == 0.95 and req["max_tokens"] == 16 and req["model"] == "served-model"
    assert len(_Server.requests) == 2  # 3 prompts, 2 per request


def test_vllm_is_imported_only_when_asked():
    import sys

    assert "vllm" in BACKENDS and "vllm" not in sys.modules
    try:
        import vllm  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match=r"prmkit\[vllm\]"):
            make_backend("vllm", "smollm2-135m")
    with pytest.raises(ValueError, match="unknown backend"):
        make_backend("nope", "m")


def test_distinct_prompts_prefilled_once_and_rows_leave_the_batch(tiny_model_dir):
    """Each distinct prompt runs through the model once; greedy rows decoded together equal each prompt decoded
    alone by transformers' generate; a row that meets its stop string leaves the batch and the others go on as
    they would have."""
    import torch

    from prmkit.generate.backends.decode import decode_rows
    from prmkit.generate.backends.hf import cache_name

    backend = make_backend("transformers", tiny_model_dir, BackendOptions(batch_size=4))
    tok, model = backend.tokenizer, backend.model
    prompts = ["Tom has 3 apples and buys 4 more", "Sam eats one", "Tom has 3 apples and buys 4 more"]
    before = backend.tokens_prefilled
    greedy = SamplingConfig(n=1, temperature=1.0, top_p=1e-9, max_new_tokens=8)

    def decode(cfg):
        ids, mask, cache = backend.prefill_distinct(prompts)
        return decode_rows(model, tok, ids[:, -1], mask, cache, cfg, [0] * len(prompts), cache_name(model))

    rows = decode(greedy)
    distinct = sum(len(tok(p)["input_ids"]) - 1 for p in set(prompts))
    assert backend.tokens_prefilled - before == distinct  # the repeated prompt was not run again
    for prompt, row in zip(prompts, rows, strict=True):
        enc = tok(prompt, return_tensors="pt")
        with torch.inference_mode():
            alone = model.generate(**enc, do_sample=False, max_new_tokens=8, pad_token_id=tok.pad_token_id)
        assert row == alone[0, enc["input_ids"].shape[1]:].tolist()
    # a stop string that the second row's text reaches first: that row ends there, the others are unchanged
    first_text = tok.decode(rows[1][:3])
    stop = first_text[-2:] if len(first_text) >= 2 else first_text
    stopped = decode(SamplingConfig(n=1, temperature=1.0, top_p=1e-9, max_new_tokens=8, stop=(stop,)))
    assert all(row == full[: len(row)] for row, full in zip(stopped, rows, strict=True))
    assert len(stopped[1]) <= 3 and stop in tok.decode(stopped[1])
    assert all(len(r) == 8 or stop in tok.decode(r) for r in stopped)


def test_the_common_start_of_the_prompts_is_prefilled_once(tiny_model_dir):
    """Prompts that start alike (a few-shot prompt, a problem's step prefixes): their common tokens run once, each
    prompt's rest once after them, left-padded in between, and each row's greedy continuation is what the prompt
    gives alone."""
    import torch

    from prmkit.generate.backends.decode import decode_rows
    from prmkit.generate.backends.hf import cache_name

    backend = make_backend("transformers", tiny_model_dir, BackendOptions(batch_size=8))
    tok, model = backend.tokenizer, backend.model
    prompts = ["Tom has 3 apples and buys 4 more", "Tom has 3 apples", "Tom has 3 pears", "Tom has 3 apples"]
    heads = [tok(p)["input_ids"][:-1] for p in dict.fromkeys(prompts)]
    common = next(k for k in range(min(map(len, heads)) + 1)
                  if k == min(map(len, heads)) or len({tuple(h[: k + 1]) for h in heads}) > 1)
    assert common >= 3  # the prompts do share a start here
    before = backend.tokens_prefilled
    ids, mask, cache = backend.prefill_distinct(prompts)
    assert backend.tokens_prefilled - before == common + sum(len(h) - common for h in heads)
    rows = decode_rows(model, tok, ids[:, -1], mask, cache, SamplingConfig(n=1, top_p=1e-9, max_new_tokens=8),
                       [0] * len(prompts), cache_name(model))
    for prompt, row in zip(prompts, rows, strict=True):
        enc = tok(prompt, return_tensors="pt")
        with torch.inference_mode():
            alone = model.generate(**enc, do_sample=False, max_new_tokens=8, pad_token_id=tok.pad_token_id)
        assert row == alone[0, enc["input_ids"].shape[1]:].tolist()


def test_sampled_rows_do_not_depend_on_their_batch_nor_on_when_the_host_reads_them(tiny_model_dir):
    """Sampled (not greedy) rows: a row's tokens are those of its seed whatever rows are beside it; reading the
    device's tokens every 5 steps (as on a GPU) ends every row where reading each step ends it, stop strings
    included; and the prefix-cache path (its own prefill, finished rows kept in the batch for the cache) draws
    the same tokens."""
    from prmkit.generate.backends import row_seed
    from prmkit.generate.backends.decode import decode_rows
    from prmkit.generate.backends.hf import cache_name

    backend = make_backend("transformers", tiny_model_dir, BackendOptions(batch_size=8))
    tok, model = backend.tokenizer, backend.model
    prompts = ["Tom has 3 apples and buys 4 more", "Sam eats one", "Tom has 3 apples", "Sam eats one"]
    cfg = SamplingConfig(n=1, temperature=1.0, top_p=0.95, max_new_tokens=12)

    def decode(rows, seeds, config=cfg, every=None):
        ids, mask, cache = backend.prefill_distinct(rows)
        return decode_rows(model, tok, ids[:, -1], mask, cache, config, seeds, cache_name(model), every)

    full = decode(prompts, [7, 8, 9, 10])
    assert full[1] != full[3]  # one prompt, two seeds: two samples
    assert decode(prompts[1:2], [8]) == full[1:2] and decode(prompts[::-1], [10, 9, 8, 7]) == full[::-1]
    stop = tok.decode(full[0][2:4])  # a stop string that row 0 meets at its 4th token
    stopped = SamplingConfig(n=1, temperature=1.0, top_p=0.95, max_new_tokens=12, stop=(stop,))
    each = decode(prompts, [7, 8, 9, 10], stopped, every=1)
    assert decode(prompts, [7, 8, 9, 10], stopped, every=5) == each
    assert len(each[0]) <= 4 and all(row == whole[: len(row)] for row, whole in zip(each, full, strict=True))
    cached = make_backend("transformers", tiny_model_dir, BackendOptions(batch_size=8, prefix_cache=True))
    seeds = [row_seed(s, 0) for s in (7, 8, 9, 10)]  # sample 0 of a prompt seeded s
    ends = replace(stopped, stop=(tok.decode(decode(prompts, seeds)[0][2:4]),))
    alone = decode(prompts, seeds, ends)
    assert len({len(r) for r in alone}) > 1  # the rows end at different steps
    assert [c for (c,) in cached.generate_rendered(prompts, ends, [7, 8, 9, 10])] == backend._decode(alone, ends)
