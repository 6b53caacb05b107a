"""Rollouts on the tiny random model: seeded per prefix, shared prefill, bad input, resume, the CLI end to end."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from prmkit.cli.main import main
from prmkit.data.demo_pools import demo_pools
from prmkit.generate import (
    BackendOptions,
    PrefixRequest,
    Rollout,
    SamplingConfig,
    make_backend,
    partial_answer,
    prefix_requests,
    rollout_prefixes,
)

CFG = SamplingConfig(n=3, max_new_tokens=6, seed=5)


@pytest.fixture(scope="module")
def backend(tiny_model_dir):
    return make_backend("transformers", tiny_model_dir, BackendOptions(batch_size=6))


def test_partial_answer_and_prefix_ids():
    assert partial_answer("Answer:", ["a = 1.", "b = 2."]) == "Answer: a = 1. [STEP] b = 2. [STEP]"
    assert partial_answer("<|im_start|>assistant\n", ["a."]) == "<|im_start|>assistant\na. [STEP]"
    assert partial_answer("Answer:", []) == "Answer:"
    pool = demo_pools(1)[0]
    ids = [r.prefix_id for r in prefix_requests([pool])]
    lengths = [len(t.steps) for t in pool.traces]
    assert ids[0] == f"{pool.problem.id}@0" and len(ids) == 1 + sum(n - 1 for n in lengths)
    chosen = prefix_requests([pool], positions=[0, 1])
    assert [r.prefix_id for r in chosen] == [f"{pool.problem.id}@0"] + [f"{t.id}@1" for t in pool.traces]


def _texts(stats):
    return {r.prefix_id: [c.text for c in r.continuations] for r in stats.records}


def test_same_seed_same_continuations_whatever_the_batch(backend, tiny_model_dir):
    requests = prefix_requests(demo_pools(2))[:5]
    first = rollout_prefixes(requests, backend, CFG, prefixes_per_batch=2)
    other = make_backend("transformers", tiny_model_dir, BackendOptions(batch_size=3))
    again = rollout_prefixes(requests[::-1], other, CFG, prefixes_per_batch=1)  # other order, other batches
    assert _texts(first) == _texts(again)
    assert all(len(set(texts)) > 1 for texts in _texts(first).values())  # K samples, not K copies
    assert _texts(rollout_prefixes(requests, backend, replace(CFG, seed=6))) != _texts(first)


def test_k_continuations_share_the_prefix_prefill(backend):
    requests = prefix_requests(demo_pools(1))[:4]
    before = backend.tokens_prefilled
    stats = rollout_prefixes(requests, backend, CFG, prefixes_per_batch=2)
    read = [r.tokens_read for r in stats.records]
    assert all(n > 100 for n in read) and stats.tokens_read == sum(read)
    # each prefix's tokens run once (its last token once per row), not K times, and the start the prompts of a
    # batch share (the few-shot prompt) once per batch
    from prmkit.generate.backends.prefix_cache import common_prefix
    from prmkit.generate.prompts import build_prompt
    from prmkit.generate.rollout import partial_answer

    ids = [backend.tokenizer(partial_answer(backend.render(build_prompt(r.problem)), r.steps))["input_ids"]
           for r in requests]
    expected = 0
    for batch in (ids[:2], ids[2:]):
        common = common_prefix(batch[0][:-1], batch[1][:-1])
        expected += common + sum(len(b) - common for b in batch) + (CFG.n - 1) * len(batch)
    assert common > 100  # the few-shot prompt
    assert backend.tokens_prefilled - before == expected < sum(read) + (CFG.n - 1) * len(requests)
    assert stats.rollouts == 12 and stats.tokens_generated == sum(r.tokens_generated for r in stats.records)


def test_prefilled_batch_equals_plain_greedy_generation(backend):
    prompts = [backend.render("Question: what?\nAnswer:"), "short", "a much longer prompt with many more words"]
    greedy = SamplingConfig(n=2, top_p=1e-9, max_new_tokens=5)
    out = backend.generate_rendered(prompts, greedy, [1, 2, 3])
    tok = backend.tokenizer
    for prompt, completions in zip(prompts, out, strict=True):
        ids = tok([prompt], return_tensors="pt")
        plain = backend.model.generate(**ids, do_sample=False, max_new_tokens=5, pad_token_id=tok.pad_token_id)
        text = tok.decode(plain[0, ids["input_ids"].shape[1] :], skip_special_tokens=True)
        assert [c.text for c in completions] == [text, text]


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (PrefixRequest("t9@1", demo_pools(1)[0].problem, ("ok", "  ")), "t9@1: step 1 is empty"),
        (PrefixRequest("c@0", replace(demo_pools(1)[0].problem, id="c", domain="chem")), "c@0: problem c has domain"),
        (PrefixRequest("long@1", demo_pools(1)[0].problem, ("word " * 3000,)), "long@1: prompt \\+ prefix is"),
    ],
)
def test_bad_input_names_the_record_and_writes_nothing(backend, tmp_path, bad, message):
    out = tmp_path / "r.jsonl"
    with pytest.raises(ValueError, match=message):
        rollout_prefixes([*prefix_requests(demo_pools(1))[:2], bad], backend, CFG, output=out)
    assert not out.exists()


def test_resume_after_interruption_writes_no_duplicate(backend, tmp_path):
    requests = prefix_requests(demo_pools(1))[:4]
    out = tmp_path / "r.jsonl"
    full = rollout_prefixes(requests, backend, CFG, output=out, prefixes_per_batch=2)
    lines = out.read_text().splitlines()
    out.write_text(lines[0] + "\n" + lines[1][:50])  # killed while writing the second prefix
    again = rollout_prefixes(requests, backend, CFG, output=out, prefixes_per_batch=2)
    assert (again.skipped, again.prefixes) == (1, 3)
    ids = [json.loads(ln)["prefix_id"] for ln in out.read_text().splitlines()]
    assert ids == [r.prefix_id for r in requests]
    assert [json.loads(ln) for ln in out.read_text().splitlines()] == [r.to_dict() for r in full.records]
    assert Rollout.from_dict(full.records[0].to_dict()) == full.records[0]


def test_cli_rollout_end_to_end(tiny_model_dir, tmp_path, capsys):
    out, conf = tmp_path / "rollouts.jsonl", tmp_path / "rollout.yaml"
    conf.write_text(f"model: {tiny_model_dir}\nk: 2\nmax_new_tokens: 4\n")
    argv = ["rollout", "--input", "demo", "--limit", "1", "--positions", "0", "2", "--config", str(conf),
            "--batch-size", "8", "--output", str(out), "--quiet"]
    assert main(argv) == 0
    records = [json.loads(ln) for ln in out.read_text().splitlines()]
    pool = demo_pools(1)[0]
    assert len(records) == 1 + sum(len(t.steps) >= 2 for t in pool.traces)
    assert [r["prefix_steps"] for r in records] == [0] + [2] * (len(records) - 1)
    assert all(len(r["continuations"]) == 2 for r in records)
    printed = capsys.readouterr().out
    generated = sum(c["tokens_generated"] for r in records for c in r["continuations"])
    assert f"{len(records)} prefixes, {2 * len(records)} rollouts, {generated} tokens generated" in printed
    assert main(argv) == 0 and f"({len(records)} already in" in capsys.readouterr().out


def test_prefix_cache_reuses_the_last_calls_rows_and_changes_no_greedy_output(tiny_model_dir):
    cached = make_backend("transformers", tiny_model_dir, BackendOptions(batch_size=4, prefix_cache=True))
    plain = make_backend("transformers", tiny_model_dir, BackendOptions(batch_size=4))
    greedy = SamplingConfig(n=2, top_p=1e-9, max_new_tokens=6)
    prompts = [cached.render("Question: what is 2 + 3?\nAnswer:"), "short", "a much longer prompt with more words"]
    first = cached.generate_rendered(prompts, greedy, [1, 2, 3])
    assert first == plain.generate_rendered(prompts, greedy, [1, 2, 3])
    assert len(cached.prefix_cache.rows) == 6 and not cached.prefix_cache.pending
    # the next stage: each prompt continued by its first completion (beam search), plus one unrelated prompt
    nxt = [p + c[0].text for p, c in zip(prompts, first, strict=True)] + ["an unrelated prompt"]
    before = (cached.tokens_prefilled, plain.tokens_prefilled)
    again = cached.generate_rendered(nxt, greedy, [4, 5, 6, 7])
    assert again == plain.generate_rendered(nxt, greedy, [4, 5, 6, 7])
    assert cached.prefix_cache.tokens_reused > 0
    assert cached.tokens_prefilled - before[0] < plain.tokens_prefilled - before[1]


def test_cache_plan_shares_one_cached_span():
    from prmkit.generate.backends.prefix_cache import cache_plan, common_prefix

    assert cache_plan([10, 8, 6], [9, 2, 5]) == (4, [4, 2, 0])
    assert cache_plan([5, 5], [4, 4]) == (4, [4, 4])  # all but the last token of each
    assert cache_plan([7, 7], [0, 6]) == (0, [0, 0])
    assert common_prefix([1, 2, 3], [1, 2, 3, 4]) == 3 and common_prefix([], [1]) == 0
    with pytest.raises(ValueError, match="2 lengths but 1"):
        cache_plan([3, 4], [1])


def test_a_template_replaces_the_few_shot_prompt_of_every_prefix(backend):
    from prmkit.data.templates import prompt_template
    from prmkit.generate.prompts import build_prompt

    requests = prefix_requests(demo_pools(1))[:3]
    zero = prompt_template("generate_math_0shot")
    few = rollout_prefixes(requests, backend, CFG)
    mine = rollout_prefixes(requests, backend, replace(CFG, template=zero))
    for r, a, b in zip(requests, few.records, mine.records, strict=True):
        text = partial_answer(backend.render(build_prompt(r.problem, zero)), r.steps)
        assert b.tokens_read == backend.count_tokens(text) < a.tokens_read  # the zero-shot prompt, not few-shot
