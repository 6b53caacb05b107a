"""The test policy of conftest.py writes steps and stops at them (what the search tests rely on)."""

from __future__ import annotations

from prmkit.generate import BackendOptions, SamplingConfig, make_backend


def test_step_policy_writes_steps_and_answers(step_policy_dir):
    backend = make_backend("transformers", step_policy_dir, BackendOptions(batch_size=16))
    cfg = SamplingConfig(n=8, max_new_tokens=12, stop=("[STEP]",))
    out = backend.generate_rendered([backend.render("Question: q?\nAnswer:")], cfg, [1])[0]
    assert {c.stopped_at for c in out} == {"[STEP]", None}
    assert all(c.text.strip() and "[" not in c.text for c in out)
    assert any("$7$" in c.text for c in out if c.stopped_at is None)


def test_one_step_rollouts_stop_at_the_next_step(step_policy_dir):
    from prmkit.data.records import Problem
    from prmkit.generate import PrefixRequest, rollout_prefixes
    from prmkit.search import is_finished

    backend = make_backend("transformers", step_policy_dir, BackendOptions(batch_size=16))
    problem = Problem("p", "What is 3 + 4?", "7")
    requests = [PrefixRequest("p#", problem), PrefixRequest("p#0", problem, ("cat dog",))]
    cfg = SamplingConfig(n=6, max_new_tokens=12, seed=3)
    one = rollout_prefixes(requests, backend, cfg, one_step=True)
    conts = [c for r in one.records for c in r.continuations]
    assert all(len(c.steps) <= 1 for c in conts)
    assert any(c.stopped_at == "[STEP]" and not is_finished(c, 12) for c in conts)
    assert all(is_finished(c, 12) == (c.answer is not None or (c.stopped_at is None and c.tokens_generated < 12))
               for c in conts)
    assert all(c.correct == (c.answer == "7") for c in conts) and any(c.correct for c in conts)
    whole = rollout_prefixes(requests, backend, cfg)  # without one_step a sample runs on over [STEP]
    assert any(len(c.steps) > 1 for r in whole.records for c in r.continuations)
