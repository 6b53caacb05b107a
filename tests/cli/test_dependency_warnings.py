"""Verbs that run a model print none of transformers' deprecation warnings: the transformers backend passes the KV
cache under the name the installed transformers gives it (`cache`, formerly `past_key_values`, which warned on
every forward and generate call and on reading it back from the output), on the real tiny model."""

from __future__ import annotations

import json
import logging
import shutil
import warnings

import pytest

from prmkit.cli.main import main


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def _deprecations(run) -> list[str]:
    """FutureWarnings and DeprecationWarnings (each time they are raised) and transformers' logged deprecation
    notes (its `warning_once` cache cleared first) while `run()` runs."""
    from transformers.utils import logging as hf_logging

    hf_logging.warning_once.cache_clear()
    handler, logger = _Records(), hf_logging.get_logger("transformers")
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.WARNING)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert run() == 0
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
    found = [f"{w.category.__name__}: {w.message} ({w.filename}:{w.lineno})" for w in caught
             if issubclass(w.category, FutureWarning | DeprecationWarning)]
    return found + [m for m in handler.messages if "deprecat" in m.lower()]


@pytest.fixture(scope="module")
def policy(tiny_base, tmp_path_factory) -> str:
    """The tiny base with room for the demo's few-shot prompt (its 300-token vocabulary spells it out in ~700)."""
    path = tmp_path_factory.mktemp("policy") / "model"
    shutil.copytree(tiny_base, path)
    config = json.loads((path / "config.json").read_text())
    (path / "config.json").write_text(json.dumps(config | {"max_position_embeddings": 4096}))
    return str(path)


@pytest.fixture(scope="module")
def tiny_prm(tiny_base, tmp_path_factory) -> str:
    """A reward model on the tiny base, untrained (its scores only order the beams)."""
    from prmkit.models.reward import RewardModel, RewardModelConfig

    path = tmp_path_factory.mktemp("tiny_prm")
    RewardModel.from_base(tiny_base, RewardModelConfig()).save_pretrained(path)
    return str(path)


# Not --quiet in the runs below: it would hide the deprecation notes transformers logs.


def test_search_beam_and_bon_warn_of_no_deprecation(policy, tiny_prm, tmp_path):
    out = tmp_path / "{method}.jsonl"
    argv = ["search", "beam,bon", "--input", "demo", "--limit", "2", "--model", policy, "--no-chat",
            "--prm", tiny_prm, "--k", "2", "--width", "1", "--max-steps", "2", "--max-new-tokens", "4",
            "--output", str(out)]  # beam keeps its prefix cache: forward, generate and the cache they return
    assert _deprecations(lambda: main(argv)) == []
    assert len((tmp_path / "beam.jsonl").read_text().splitlines()) == 2


def test_generate_warns_of_no_deprecation(policy, tmp_path):
    out = tmp_path / "pools.jsonl"
    argv = ["generate", "--data", "demo", "--limit", "1", "--model", policy, "--no-chat", "--k", "2",
            "--max-new-tokens", "4", "--no-filter", "--output", str(out)]  # K copies of one prompt: shared prefill
    assert _deprecations(lambda: main(argv)) == []
    assert out.read_text().count("\n") == 1
