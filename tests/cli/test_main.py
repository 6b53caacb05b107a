"""Every verb takes `--config` (an unknown key is an error) and `--quiet` (before or after the verb)."""

import os

import pytest

from prmkit.cli.main import VERBS, build_parser, main

REQUIRED = {  # the least each verb needs besides --config
    "data": ["corrupt"], "label": ["--input", "x", "--output", "y"], "threshold": [], "export": [],
    "generate": ["--output", "y"], "rollout": ["--output", "y"], "verify": ["x"], "train": ["prm", "--output", "y"],
    "score": ["--model", "m", "--input", "x", "--output", "y"], "evaluate": ["bok"], "view": [],
    "search": ["beam", "--output", "y"], "pum": ["--input", "x", "--output-dir", "y"],
    "rl": ["grpo", "--output", "y"],
}


@pytest.mark.parametrize("verb", list(VERBS))
def test_every_verb_rejects_unknown_config_keys(verb, tmp_path, capsys):
    conf = tmp_path / "c.yaml"
    conf.write_text("not_a_setting: 1\n")
    assert main([verb, *REQUIRED[verb], "--config", str(conf)]) == 2
    assert "unknown keys ['not_a_setting']" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["--quiet", "export"], ["export", "--quiet"]])
def test_one_quiet_flag_before_or_after_the_verb(argv):
    assert build_parser("export").parse_args(argv).quiet is True
    assert build_parser("export").parse_args(["export"]).quiet is False


def test_quiet_silences_tqdm_and_transformers(monkeypatch, tmp_path, capsys):
    for name in ("TQDM_DISABLE", "HF_HUB_DISABLE_PROGRESS_BARS", "TRANSFORMERS_VERBOSITY"):
        monkeypatch.delenv(name, raising=False)
    from transformers.utils import logging as hf_logging

    monkeypatch.setattr(hf_logging, "_tqdm_active", True)
    assert main(["--quiet", "view", "--config", str(tmp_path / "missing.yaml")]) == 2  # quiet is set before run
    assert os.environ["TQDM_DISABLE"] == "1" and not hf_logging.is_progress_bar_enabled()
    assert hf_logging.get_verbosity() == hf_logging.ERROR
    hf_logging.enable_progress_bar()
    hf_logging.set_verbosity_warning()
