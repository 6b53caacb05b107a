"""Adding a step scorer or an aggregation is one file plus one registry line each (toy_scorer.py,
toy_aggregation.py): registered, they run through the real verbs (`prmkit score`, `prmkit evaluate bok`), and every
place that loads a scorer (score, search, the RL rewards) goes through the one registry `models.SCORERS`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import pool_dict, write_jsonl
from models.toy_aggregation import first_step
from models.toy_scorer import ToyScorer
from prmkit.cli.main import main
from prmkit.models import SCORERS, load_scorer
from prmkit.models.aggregate import AGGREGATIONS

# each problem: trace 0 is the only correct one. Step scores are lengths / 10:
#   #0 (0.9, 0.1): prod 0.09, first 0.9;  #1 (0.5, 0.5): 0.25, 0.5;  #2 (0.2, 0.3): 0.06, 0.2;  #3 (0.3): 0.3, 0.3
# so best-of-4 by prod picks #3 (wrong) and by first picks #0 (right)
TRACES = [(["a" * 9, "b"], "7", True), (["c" * 5, "d" * 5], "1", False), (["ee", "fff"], "2", False),
          (["ggg"], "3", False)]


def _score_file(tmp_path, monkeypatch) -> str:
    monkeypatch.setitem(SCORERS, "toy", ToyScorer)
    pools = write_jsonl(tmp_path / "pools.jsonl", [pool_dict(f"p{i}", f"q{i}", "7", TRACES) for i in range(2)])
    out = tmp_path / "scores.jsonl"
    assert main(["score", "--scorer", "toy", "--model", "-", "--input", pools, "--output", str(out)]) == 0
    return str(out)


def test_a_registered_scorer_runs_through_prmkit_score(tmp_path, monkeypatch, capsys):
    text = Path(_score_file(tmp_path, monkeypatch)).read_text(encoding="utf-8")
    records = [json.loads(line) for line in text.splitlines()]
    assert "scored 8 traces of 2 problems" in capsys.readouterr().out
    assert [r["step_scores"] for r in records[:4]] == [[0.9, 0.1], [0.5, 0.5], [0.2, 0.3], [0.3]]
    assert all(r["kind"] == "toy" and r["aggregation"] == "prod" for r in records)  # no checkpoint: prod
    assert [r["score"] for r in records[:4]] == pytest.approx([0.09, 0.25, 0.06, 0.3])


def test_a_registered_aggregation_runs_through_prmkit_evaluate_bok(tmp_path, monkeypatch):
    scores = _score_file(tmp_path, monkeypatch)
    monkeypatch.setitem(AGGREGATIONS, "first", first_step)

    def best_of_4(*aggregation: str) -> float:
        out = tmp_path / "bok.json"
        assert main(["evaluate", "bok", "--scores", f"T={scores}", "--ks", "4", "--bootstrap", "10", "--quiet",
                     *aggregation, "--output", str(out)]) == 0
        return next(r["mean"] for r in json.loads(out.read_text())["rows"] if r["method"] == "T")

    assert best_of_4() == 0.0  # the stored score: prod picks #3
    assert best_of_4("--aggregation", "first") == 1.0  # the toy aggregation picks #0


def test_search_score_and_rewards_load_through_the_one_registry(tmp_path, monkeypatch):
    import prmkit.search
    from prmkit.evaluate.score import ScoreConfig, score_file
    from prmkit.rewards import Scorers
    from prmkit.search import BeamConfig

    assert prmkit.search.SCORERS is SCORERS
    monkeypatch.setitem(SCORERS, "reward-model", ToyScorer)  # the default kind everywhere
    scorer = BeamConfig(prm="runs/x").make_scorer()
    assert isinstance(scorer, ToyScorer) and scorer.path == "runs/x"
    cache = Scorers()
    assert isinstance(cache["runs/y"], ToyScorer) and cache["runs/y"] is cache["runs/y"]  # loaded once
    pools = write_jsonl(tmp_path / "pools.jsonl", [pool_dict("p0", "q0", "7", TRACES)])
    assert score_file(ScoreConfig(model="runs/z", input=str(pools), output=str(tmp_path / "s.jsonl")))["written"] == 4


def test_unknown_kind_and_a_path_that_is_no_checkpoint_are_clear_errors(tmp_path, capsys):
    from prmkit.search import BeamConfig

    with pytest.raises(ValueError, match="unknown scorer 'nope'; choose from reward-model"):
        load_scorer("runs/x", "nope")
    with pytest.raises(ValueError, match="unknown scorer 'nope'"):
        BeamConfig(scorer="nope").make_scorer()
    with pytest.raises(FileNotFoundError, match=r"is not a reward-model checkpoint \(not found\)"):
        load_scorer(tmp_path / "missing")
    with pytest.raises(FileNotFoundError, match=r"\(no prmkit_reward.json in it\)"):
        load_scorer(tmp_path)
    pools = write_jsonl(tmp_path / "pools.jsonl", [pool_dict("p0", "q0", "7", TRACES)])
    assert main(["score", "--model", str(tmp_path / "missing"), "--input", pools, "--output",
                 str(tmp_path / "s.jsonl")]) == 2
    assert "not a reward-model checkpoint (not found): give a directory written by `prmkit train`" in (
        capsys.readouterr().err)


def test_a_loader_that_returns_no_scorer_is_refused(monkeypatch):
    monkeypatch.setitem(SCORERS, "broken", lambda path: object())
    with pytest.raises(TypeError, match="scorer loader 'broken' returned a object, which has no score_steps"):
        load_scorer("x", "broken")


class Picky(ToyScorer):
    """A scorer that sets the optional members of `StepScorer` (they were a reward model's alone)."""

    kind, default_aggregation = "picky", "min"

    def limit_batches(self, max_tokens: int, max_batch: int) -> None:
        LIMITS.append((max_tokens, max_batch))

    def check_fits(self, pools) -> None:
        if long := [t.id for p in pools for t in p.traces if len(t.steps) > 1]:
            raise ValueError(f"trace {long[0]}: too long for the scorer")


LIMITS: list[tuple[int, int]] = []


def test_a_scorer_s_optional_members_reach_prmkit_score(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(SCORERS, "picky", Picky)
    pools = write_jsonl(tmp_path / "pools.jsonl", [pool_dict("p0", "q0", "7", TRACES[3:])])
    out = tmp_path / "scores.jsonl"
    assert main(["score", "--scorer", "picky", "--model", "-", "--input", pools, "--output", str(out),
                 "--max-tokens", "100", "--max-batch", "3"]) == 0
    (record,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert record["kind"] == "picky" and record["aggregation"] == "min" and LIMITS == [(100, 3)]
    pools = write_jsonl(tmp_path / "long.jsonl", [pool_dict("p1", "q1", "7", TRACES)])
    assert main(["score", "--scorer", "picky", "--model", "-", "--input", pools, "--output",
                 str(tmp_path / "long_scores.jsonl")]) == 2
    assert "trace p1/0: too long for the scorer" in capsys.readouterr().err
