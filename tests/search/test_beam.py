"""Beam search and best-of-N on the step policy (conftest.py) with the ShortSteps scorer: beams kept by score, one
generation call per stage for all live beams of all problems, token accounting, the choice, resume and the CLI."""

from __future__ import annotations

import json

import pytest

from prmkit.cli.main import main
from prmkit.data.records import Problem
from prmkit.domains import STEP, extract_answer, split_steps
from prmkit.generate import BackendOptions, SamplingConfig
from prmkit.generate.backends.hf import TransformersBackend
from prmkit.generate.prompts import build_prompt
from prmkit.generate.rollout import partial_answer
from prmkit.search import (
    SCORERS,
    SearchStats,
    beam_search,
    best_of_n,
    choose,
    keep_best,
    majority_vote,
    prefix_scores,
)

PROBLEMS = [Problem("a", "What is 3 + 4?", "7"), Problem("b", "What is 2 + 6?", "8"), Problem("c", "1 + 6?", "7")]
CFG = SamplingConfig(n=4, max_new_tokens=12, seed=1)


class Recording(TransformersBackend):
    """The transformers backend, logging each `generate_rendered` call (prompts, sampling, completions)."""

    def __init__(self, path: str):
        super().__init__(path, BackendOptions(batch_size=8))
        self.calls: list = []

    def generate_rendered(self, prompts, cfg, seeds):
        out = super().generate_rendered(prompts, cfg, seeds)
        self.calls.append((prompts, cfg, out))
        return out


@pytest.fixture(scope="module")
def backend(step_policy_dir):
    return Recording(step_policy_dir)


def _score(steps) -> float:
    return min(1 / (1 + len(s)) for s in steps) if steps else 0.0


def test_keep_best_majority_vote_and_prefix_scores(short_steps):
    assert keep_best([0.2, 0.9, 0.5, 0.9], 2) == [1, 3] and keep_best([0.1], 3) == [0]
    assert majority_vote(["12", None, "12.0", "7", "7"]) == 0 and majority_vote([None, "3"]) == 1
    assert majority_vote([None, None]) is None
    assert choose([0.9, 0.5, 0.7], [None, "3", "4"]) == 2 and choose([0.1, 0.4], [None, None]) == 1
    items = [("q", ["ab", "a"]), ("q", []), ("r", ["abcd"])]
    assert prefix_scores(short_steps, items, "min") == [pytest.approx(1 / 3), 0.0, pytest.approx(0.2)]
    assert short_steps.calls == 2  # one call per run of one question, the empty trace not sent


def _replay(backend: Recording, problems: list[Problem], width: int, max_steps: int):
    """What beam search must do, recomputed from the logged calls: per problem, the expected next prompts after each
    stage and the finished (steps, answer) candidates."""
    steps_of = {backend.render(build_prompt(p)): (p, ()) for p in problems}
    finished: dict[str, list] = {p.id: [] for p in problems}
    expected_next = []
    for depth, (prompts, cfg, out) in enumerate(backend.calls):
        open_: dict[str, list] = {}
        for prompt, completions in zip(prompts, out, strict=True):
            problem, steps = steps_of[prompt]
            for c in completions:
                new = (*steps, *split_steps(c.text))
                answer = extract_answer("math", c.text)
                cut = c.stopped_at == STEP or c.tokens == cfg.max_new_tokens  # the trace goes on
                if answer is None and cut and split_steps(c.text) and depth < max_steps - 1:
                    open_.setdefault(problem.id, []).append(new)
                else:
                    finished[problem.id].append((new, answer))
        nxt = {}
        for pid, cands in open_.items():
            for i in keep_best([_score(s) for s in cands], width):
                problem = next(p for p in problems if p.id == pid)
                nxt[partial_answer(backend.render(build_prompt(problem)), cands[i])] = (problem, cands[i])
        expected_next.append(nxt)
        steps_of = nxt
    return expected_next, finished


def test_beam_keeps_the_best_prefixes_in_one_call_per_stage(backend, short_steps):
    backend.calls.clear()
    stats = SearchStats()
    results = beam_search(PROBLEMS, backend, short_steps, CFG, width=2, max_steps=4, stats=stats)
    calls = backend.calls
    assert len(calls) == stats.generation_calls == max(r.stages for r in results) >= 2
    assert [len(p) for p, _, _ in calls] == stats.prefixes_per_call
    assert [cfg.n for _, cfg, _ in calls] == [4] + [2] * (len(calls) - 1)  # N first, then N/b per kept beam
    assert stats.prefixes_per_call[0] == 3 and max(stats.prefixes_per_call[1:]) > 2  # beams of several problems
    expected_next, finished = _replay(backend, PROBLEMS, 2, 4)
    for nxt, (prompts, _, _) in zip(expected_next, calls[1:], strict=False):
        assert sorted(set(prompts)) == sorted(nxt)  # the kept beams are the b best unfinished prefixes (two beams
        # may hold the same text: the replay keys them by prompt)
    assert not expected_next[len(calls) - 1]  # nothing left to expand after the last call
    tokens = sum(c.tokens for _, _, out in calls for cs in out for c in cs)
    assert stats.tokens_generated == sum(r.tokens_generated for r in results) == tokens
    assert stats.tokens_read == sum(backend.count_tokens(p) for prompts, _, _ in calls for p in prompts)
    assert stats.samples == sum(r.samples for r in results) == sum(len(cs) for _, _, o in calls for cs in o)
    for r in results:
        cands = finished[r.problem_id]
        best = cands[choose([_score(s) for s, _ in cands], [a for _, a in cands])]
        assert best[1] is not None or all(a is None for _, a in cands)
        assert (tuple(r.steps), r.answer) == best and r.score == pytest.approx(_score(best[0]))
        assert r.correct == (r.answer == next(p.answer for p in PROBLEMS if p.id == r.problem_id))
        assert r.candidates == len(cands) and r.answered == sum(a is not None for _, a in cands)
    assert any(r.correct for r in results) and not next(r for r in results if r.problem_id == "b").correct


def test_a_problem_searches_the_same_whatever_its_batch(backend, short_steps):
    together = beam_search(PROBLEMS, backend, short_steps, CFG, width=2, max_steps=3)
    alone = beam_search(PROBLEMS[2:], backend, short_steps, CFG, width=2, max_steps=3)
    assert next(r for r in together if r.problem_id == "c") == alone[0]


def test_best_of_n_picks_the_best_scored_trace(backend, short_steps):
    backend.calls.clear()
    stats = SearchStats()
    results = best_of_n(PROBLEMS, backend, short_steps, CFG, max_steps=4, stats=stats)
    [(prompts, cfg, out)] = backend.calls
    assert len(prompts) == 3 and cfg.n == 4 and cfg.max_new_tokens == 48
    for r, completions in zip(results, out, strict=True):
        traces = [split_steps(c.text) for c in completions]
        i = choose([_score(s) for s in traces], [extract_answer("math", c.text) for c in completions])
        assert r.steps == traces[i] and r.tokens_generated == sum(c.tokens for c in completions)
        vote = majority_vote([extract_answer("math", c.text) for c in completions])
        assert r.majority_answer == (None if vote is None else extract_answer("math", completions[vote].text))
    assert stats.tokens_generated == sum(r.tokens_generated for r in results) > 0


def test_beam_width_must_divide_n(backend, short_steps):
    with pytest.raises(ValueError, match="multiple of the beam width"):
        beam_search(PROBLEMS, backend, short_steps, SamplingConfig(n=3), width=2, max_steps=2)


def test_cli_search_resumes_per_problem(step_policy_dir, tmp_path, monkeypatch, capsys, short_steps):
    monkeypatch.setitem(SCORERS, "short-steps", lambda path: short_steps)
    out = tmp_path / "{method}.jsonl"
    argv = ["search", "beam,bon", "--input", "demo", "--limit", "3", "--scorer", "short-steps", "--prm", "-",
            "--model", step_policy_dir, "--k", "4", "--width", "2", "--max-steps", "2", "--max-new-tokens", "8",
            "--problems-per-batch", "2", "--output", str(out), "--quiet"]
    assert main(argv) == 0
    beam = tmp_path / "beam.jsonl"
    first = beam.read_text().splitlines()
    assert len(first) == 3 and len((tmp_path / "bon.jsonl").read_text().splitlines()) == 3
    printed = capsys.readouterr().out
    assert "beam: 3 problems" in printed and "bon: 3 problems" in printed and "tok/s" in printed
    rows = {r["method"]: r for r in json.loads((tmp_path / "compare.json").read_text())}
    right = {m: [json.loads(ln)["correct"] for ln in (tmp_path / f"{m}.jsonl").read_text().splitlines()]
             for m in ("beam", "bon")}
    assert rows["beam"]["difference"] == pytest.approx((sum(right["beam"]) - sum(right["bon"])) / 3)
    assert "difference" not in rows["bon"] and "minus bon" in printed
    beam.write_text(first[0] + "\n" + first[1][:40])  # killed while writing the second problem
    assert main(argv) == 0
    again = beam.read_text().splitlines()
    assert [json.loads(ln) for ln in again] == [json.loads(ln) for ln in first]  # same records, no duplicate
    assert "beam: searched 2 problems" in capsys.readouterr().out
    argv[argv.index("--k") + 1] = "2"  # results of another N are not mixed into the files: refused, nothing written
    assert main(argv) == 2
    assert "beam.jsonl was searched with other settings (k: 4 -> 2)" in capsys.readouterr().err
    assert beam.read_text().splitlines() == again


def test_compare_is_on_the_problems_of_this_run(step_policy_dir, tmp_path, monkeypatch, capsys, short_steps):
    # outputs that hold 4 problems from an earlier run: a run with --limit 2 compares its 2 problems, as it reports
    monkeypatch.setitem(SCORERS, "short-steps", lambda path: short_steps)
    argv = ["search", "beam,bon", "--input", "demo", "--limit", "4", "--scorer", "short-steps", "--prm", "-",
            "--model", step_policy_dir, "--k", "2", "--width", "2", "--max-steps", "1", "--max-new-tokens", "6",
            "--output", str(tmp_path / "{method}" / "out.jsonl"), "--quiet"]
    assert main(argv) == 0
    argv[argv.index("--limit") + 1] = "2"
    assert main(argv) == 0
    printed = capsys.readouterr().out.split("2 problems from demo")[1]
    rows = json.loads((tmp_path / "compare" / "out.json").read_text())
    assert [r["problems"] for r in rows] == [2, 2] and "beam: 2 problems in" in printed
    assert "on 2 problems" in printed and "on 4 problems" not in printed
