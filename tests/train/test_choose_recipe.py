"""The machine's recipe applies when no training setting is chosen; run-keeping settings (model, threads,
checkpoints) keep it; the same rule for the CLI's flags and the API's keywords (one function)."""

from __future__ import annotations

import pytest

from prmkit.train.run import choose_recipe


def test_recipe_kept_beside_run_flags_and_replaced_by_a_training_setting():
    lines: list[str] = []
    plain = choose_recipe(None, {}, lines.append)
    assert plain is not None and plain.endswith(("cpu.yaml", "gpu.yaml"))
    run_flags = choose_recipe(None, {"threads": 1, "save_strategy": "no", "seed": 3, "resume": True,
                                     "model": "smollm2-135m", "pools": "demo"}, lines.append)
    assert run_flags == plain
    assert sum("flags override it" in line for line in lines) == 2
    lines.clear()
    assert choose_recipe(None, {"lr": 1e-5, "save_strategy": "no"}, lines.append) is None and lines == []
    assert choose_recipe("mine.yaml", {}, lines.append) == "mine.yaml" and lines == []
    assert choose_recipe("cpu_verifier", {}, lines.append).endswith("recipes/cpu_verifier.yaml")  # a recipe's name
    with pytest.raises(FileNotFoundError, match="no recipe 'cpu_verfier'"):
        choose_recipe("cpu_verfier", {}, lines.append)
