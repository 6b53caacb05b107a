"""Every verb takes `--config` (an unknown key is an error) and `--quiet` (before or after the verb)."""

import os

import pytest

from prmkit.cli.main import TOP, build_parser, main, verb_help, verb_names

REQUIRED = {  # the least each verb needs besides --config
    "data": ["corrupt"], "label": ["--input", "x", "--output", "y"], "threshold": [], "export": [], "export-hf": [],
    "generate": ["--output", "y"], "rollout": ["--output", "y"], "verify": ["x"], "train": ["prm", "--output", "y"],
    "score": ["--model", "m", "--input", "x", "--output", "y"], "evaluate": ["bok"], "view": [],
    "search": ["beam", "--output", "y"], "pum": ["--input", "x", "--output-dir", "y"],
    "rl": ["grpo", "--output", "y"], "bench": ["--output", "y"], "sft": ["--output", "y"],
    "payoff": ["run", "--output", "y"],
}


@pytest.mark.parametrize("verb", TOP)
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


def test_version_through_the_entry_point():
    import subprocess
    import sys

    import prmkit

    for module in ("prmkit.cli.main", "prmkit"):  # `python -m prmkit` too, where the scripts folder is not on PATH
        out = subprocess.run([sys.executable, "-m", module, "--version"], capture_output=True, text=True, timeout=120)
        assert out.returncode == 0 and out.stdout == f"prmkit {prmkit.__version__}\n"
    out = subprocess.run([sys.executable, "-m", "prmkit", "labell"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "unknown verb 'labell'; did you mean 'label'?" in out.stderr


def test_help_imports_neither_torch_nor_transformers():
    import subprocess
    import sys

    code = ("import sys; from prmkit.cli.main import build_parser; text = build_parser().format_help(); "
            "assert 'synth' in text and 'processbench' in text, text; "
            "print(sorted({'torch', 'transformers'} & set(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "[]", out.stderr


def test_help_lists_every_registered_name():
    from prmkit.label.registry import LABELERS
    from prmkit.models.heads import HEADS
    from prmkit.search import METHODS
    from prmkit.train.run import KIND_ALIASES

    registries = {"data": ["corrupt", "synth", "bench"], "label": LABELERS, "train": [*HEADS, *KIND_ALIASES],
                  "search": METHODS, "evaluate": ["bok", "processbench"], "rl": ["grpo", "compare"],
                  "bench": LABELERS, "payoff": ["run", "score", "table"]}
    assert {verb for verb in TOP if verb_names(verb)} == set(registries)
    for verb, registry in registries.items():
        assert verb_names(verb) == list(registry), verb
        assert verb_help(verb).endswith(": " + " | ".join(registry))
    shown = " ".join(build_parser().format_help().split()).replace("- ", "-")  # `prmkit --help`, unwrapped
    assert all(verb_help(verb) in shown for verb in registries)


@pytest.mark.parametrize("argv", [["data", "synth", "--quiet"], ["data", "--quiet", "synth"],
                                  ["--quiet", "evaluate", "processbench"], ["evaluate", "bok", "--quiet"]])
def test_quiet_after_a_sub_command(argv):
    assert build_parser(argv[argv[0] == "--quiet"]).parse_args(argv).quiet is True
