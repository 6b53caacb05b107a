"""A toy step scorer for the registry tests: a step scores its length / 10, no model. One class plus one registry
line, `SCORERS["toy"] = ToyScorer` (the tests put it there with `monkeypatch.setitem`).

A loader takes the path given as `--model` / `--prm`; this one names nothing and is only kept.
"""

from __future__ import annotations

from prmkit.models import StepScorer


class ToyScorer(StepScorer):
    def __init__(self, path: str):
        self.path, self.calls = path, 0

    def score_steps(self, question: str, step_lists: list[list[str]]) -> list[list[float]]:
        self.calls += 1
        return [[len(s) / 10 for s in steps] for steps in step_lists]
