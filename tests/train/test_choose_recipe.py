"""A flag overrides its one field of the recipe and says so; it never swaps the recipe for the paper's defaults. The
same rule for the CLI's flags and the API's keywords (one function, `resolve_configs`)."""

from __future__ import annotations

import pytest

from prmkit.data.settings import read_config_file
from prmkit.train.config import TrainConfig
from prmkit.train.run import SETTINGS, choose_recipe, resolve_configs


def test_recipe_named_by_file_or_name_else_the_machines():
    lines: list[str] = []
    plain = choose_recipe(None, lines.append)
    assert plain.endswith(("cpu.yaml", "gpu.yaml")) and len(lines) == 1 and "overrides its one field" in lines[0]
    lines.clear()
    assert choose_recipe("mine.yaml", lines.append) == "mine.yaml" and lines == []
    assert choose_recipe("cpu_verifier", lines.append).endswith("recipes/cpu_verifier.yaml")  # a recipe's name
    with pytest.raises(FileNotFoundError, match="no recipe 'cpu_verfier'"):
        choose_recipe("cpu_verfier", lines.append)


def test_max_steps_keeps_the_recipes_other_fields(capsys):
    recipe = read_config_file(choose_recipe(None, lambda _: None), SETTINGS, ("kind",))
    train_config, _, inputs = resolve_configs("prm", {"max_steps": 3, "pools": "demo", "labels": "l.jsonl",
                                                      "threads": 1}, log=lambda _: None)
    assert train_config.max_steps == 3 and inputs.pools == "demo"
    assert {k: getattr(train_config, k) for k in recipe} == dict(recipe)  # e.g. keep_layers 8, lr 1e-4 on a CPU
    assert recipe["batch_traces"] != TrainConfig.batch_traces  # the recipe is not the defaults
    name = choose_recipe(None, lambda _: None).rsplit("/", 1)[-1]
    assert capsys.readouterr().err.splitlines() == [
        f"prmkit train: note: --max-steps 3 overrides recipes/{name}'s max_steps"]  # run flags (threads) not noted
