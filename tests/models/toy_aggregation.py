"""A toy aggregation for the registry tests: a trace scores its first step's score. One function plus one
registry line, `AGGREGATIONS["first"] = first_step` (the tests put it there with `monkeypatch.setitem`)."""

from __future__ import annotations


def first_step(step_scores: list[float]) -> float:
    return step_scores[0]
