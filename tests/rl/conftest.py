"""Fixtures of the RL tests: the bigram step-writing policy of the search tests (" cat dog [STEP] sun $7$"), and
problems whose answer it can or cannot reach."""

from __future__ import annotations

import pytest

from search.conftest import step_policy_dir  # noqa: F401  (the fixture, shared with the search tests)


@pytest.fixture(scope="session")
def seven_problems(tmp_path_factory) -> str:
    """A Problem JSONL: answers 7 (reachable by the step policy) and 8 (never)."""
    from helpers import write_jsonl

    path = tmp_path_factory.mktemp("rl-data") / "problems.jsonl"
    return write_jsonl(path, [{"id": f"p{k}", "question": f"Tom has {k} cats. How many?", "answer": str(7 + k % 2)}
                              for k in range(6)])
