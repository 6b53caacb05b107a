"""The vLLM backend against a stand-in engine (tests/fake_vllm.py, vLLM's `LLM.generate` contract): one engine call
per `generate_rendered`, one seeded request per row, outputs mapped back to their prompts; and the rollout
labelers on it: one engine call per labeler batch across problems, the records of pool by pool."""

from __future__ import annotations

import re

import pytest

import fake_vllm
from helpers import pool_dict
from prmkit.data.records import Pool
from prmkit.generate import BackendOptions, SamplingConfig, make_backend, partial_answer
from prmkit.generate.backends import row_seed
from prmkit.generate.prompts import build_prompt
from prmkit.generate.rollout import prefix_seed

CFG = SamplingConfig(n=3, temperature=0.7, top_p=0.9, max_new_tokens=20, stop=("\nQuestion:",))


@pytest.fixture
def fake(monkeypatch):
    return fake_vllm.install(monkeypatch)


def test_each_row_is_one_seeded_request_of_one_engine_call(fake):
    backend = make_backend("vllm", "fake-model", BackendOptions(chat=False, dtype="bfloat16"))
    prompts, seeds = ["Q: 1 + 2?\nA: 3", "Q: 5 - 1?\nA:"], [11, 12]
    out = backend.generate_rendered(prompts, CFG, seeds)
    (call,) = backend.llm.calls
    assert backend.llm.dtype == "bfloat16"
    assert [p for p, _ in call] == [prompts[0]] * 3 + [prompts[1]] * 3  # K rows a prompt, in order
    assert [sp.seed for _, sp in call] == [row_seed(s, k) for s in seeds for k in range(3)]
    assert all((sp.n, sp.temperature, sp.top_p, sp.max_tokens, sp.stop) == (1, 0.7, 0.9, 20, ["\nQuestion:"])
               for _, sp in call)
    for prompt, seed, completions in zip(prompts, seeds, out, strict=True):  # each output back at its prompt
        expected = [fake.fake_text(prompt, row_seed(seed, k)).split("\nQuestion:")[0] for k in range(3)]
        assert [c.text for c in completions] == expected
        assert all(c.stopped_at == "\nQuestion:" and c.tokens == len(c.text.split()) for c in completions)
    assert backend.generate_rendered(prompts[1:], CFG, seeds[1:]) == out[1:]  # whatever else is in the call
    alone = backend.generate(["Q: 1 + 2?\nA:"], CFG)[0]  # generate: row r seeded row_seed(cfg.seed, r)
    assert [sp.seed for _, sp in backend.llm.calls[-1]] == [row_seed(CFG.seed, r) for r in range(3)]
    assert len({c.text for c in alone}) == 3


POOLS = [pool_dict(f"v{k}", f"Ann has {k} pens and finds {k + 2} more. How many pens?", str(2 * k + 2),
                   [([f"{k} + {k + 2} = {2 * k + 2}", f"{2 * k + 2}"], str(2 * k + 2), True),
                    ([f"{k} + {k + 2} = {2 * k + 2}", f"{2 * k + 2} * 2 = {4 * k + 4}", "twice", f"{4 * k + 4}"],
                     str(4 * k + 4), False),
                    ([f"{k} * 2 = {2 * k}"] * (k % 3 + 1) + [f"{2 * k}"], str(2 * k), False)])
         for k in range(5)]


def _labeler(batch_size: int):
    from prmkit.generate.config import DecodingConfig
    from prmkit.label import RolloutLabelConfig, build_labelers

    cfg = RolloutLabelConfig(model="fake-model", backend="vllm", k=3, decoding=DecodingConfig(max_new_tokens=20,
                             chat=False), batch_size=batch_size)
    return build_labelers(["math-shepherd"], [cfg])[0]


def test_rollout_labelers_batch_many_problems_per_engine_call(fake):
    """Math-Shepherd on `--backend vllm`: one engine call per labeler batch, up to batch_size rows holding several
    problems' prefixes, each row seeded from its prefix id; the records equal pool by pool, and each soft label is
    the fraction of its own prefix's rows that the fake answered right."""
    pools = [Pool.from_dict(p) for p in POOLS]
    items = [(p, {"math-shepherd": {t.id for t in p.traces}}) for p in pools]
    one = _labeler(3)  # one prefix (K = 3 rows) per engine call
    alone = [one.label(pool, todo) for pool, todo in items]
    many = _labeler(24)
    together = list(many.label_stream(items))
    assert [r.to_dict() for d in together for r in d.records["math-shepherd"]] == \
        [r.to_dict() for d in alone for r in d.records["math-shepherd"]]
    calls = many.roller.backend.llm.calls
    assert len(calls) < len(pools) and max(map(len, calls)) == 24 and all(len(c) % 3 == 0 for c in calls)
    problems = [{re.search(r"Ann has (\d+) pens", p.rsplit("Question:", 1)[-1]).group(1) for p, _ in c}
                for c in calls]
    assert max(map(len, problems)) > 1  # a call holds several problems' prefixes
    assert sum(map(len, calls)) == sum(map(len, one.roller.backend.llm.calls))  # each prefix rolled out once
    for pool, done in zip(pools, together, strict=True):
        rolls = many.roller.for_pool(pool)
        for record, trace in zip(done.records["math-shepherd"], pool.traces, strict=True):
            expected = []
            for n in range(1, len(trace.steps)):
                prompt = partial_answer(build_prompt(pool.problem), trace.steps[:n])
                seed = prefix_seed(0, rolls.request_id(trace, n))
                answers = [fake.fake_text(prompt, row_seed(seed, k)).split("answer is ")[1].split(".")[0]
                           for k in range(3)]
                expected.append(sum(a == pool.problem.answer for a in answers) / 3)
            assert record.scores == [*expected, float(trace.correct)]
    assert any(0 < s < 1 for d in together for r in d.records["math-shepherd"] for s in r.scores)
