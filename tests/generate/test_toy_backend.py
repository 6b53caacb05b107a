"""A new generation backend is one file (toy_backend.py) plus one registry line, and then every verb that samples
uses it: `prmkit generate`, and the rollout labelers of `prmkit label`."""

from __future__ import annotations

import json

import pytest

from generate.toy_backend import SCRIPT, ScriptBackend
from prmkit.cli.main import main
from prmkit.data.formats import read_pools
from prmkit.generate.backends import BACKENDS


@pytest.fixture
def script(monkeypatch):
    """The one line a new backend needs."""
    monkeypatch.setitem(BACKENDS, "script", ScriptBackend)


def test_generate_samples_with_the_new_backend(script, tmp_path):
    out = tmp_path / "pools.jsonl"
    assert main(["generate", "--data", "demo", "--backend", "script", "--k", "2", "--limit", "4", "--no-filter",
                 "--output", str(out), "--quiet"]) == 0
    pools = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(pools) == 4
    for pool in pools:
        assert len(pool["traces"]) == 2
        for t in pool["traces"]:  # the script's two steps, its answer judged against each problem's gold answer
            assert t["steps"] == [s.strip() for s in SCRIPT.split("[STEP]")] and t["answer"] == "7"
            assert t["correct"] == (pool["problem"]["answer"] == "7")


def test_a_rollout_labeler_rolls_out_on_the_new_backend(script, tmp_path):
    out = tmp_path / "labels.jsonl"
    assert main(["label", "--input", "demo", "--method", "math-shepherd", "--backend", "script", "--k", "2",
                 "--limit", "3", "--tau", "0.5", "--output", str(out), "--quiet"]) == 0
    gold = {p.problem.id: p.problem.answer for p in read_pools("demo")}
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len({r["problem_id"] for r in records}) == 3
    for r in records:  # every continuation answers 7: a prefix's share of right continuations is 1 or 0
        assert r["scores"][:-1] == [float(gold[r["problem_id"]] == "7")] * (len(r["scores"]) - 1)
        assert r["cost"]["tokens_generated"] > 0
