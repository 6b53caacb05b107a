"""Settings of a verb from three places, one rule for the CLI and the Python API: the config dataclasses'
defaults, then a YAML file (`--config run.yaml` / `config="run.yaml"`), then the settings given by name (flags on
the command line, keyword arguments in Python). A key that no dataclass of the verb has is an error naming it.

    file = read_config_file("run.yaml", (TrainConfig, RewardModelConfig))
    config = build_config(TrainConfig, file, {"lr": 1e-5})
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

import yaml

__all__ = ["build_config", "check_known", "known_fields", "read_config_file"]


def known_fields(classes: Iterable[type], skip: Iterable[str] = ()) -> set[str]:
    """The field names of the dataclasses `classes`, less `skip`."""
    return {f.name for cls in classes for f in dataclasses.fields(cls)} - set(skip)


def check_known(settings: Mapping[str, Any], classes: Iterable[type], where: str, skip: Iterable[str] = ()) -> None:
    """A ValueError naming `where` when a key of `settings` is no field of `classes`."""
    known = known_fields(classes, skip)
    if unknown := set(settings) - known:
        raise ValueError(f"{where}: unknown keys {sorted(unknown)}; known: {sorted(known)}")


def read_config_file(path: str | None, classes: tuple[type, ...], skip: tuple[str, ...] = ()) -> dict[str, Any]:
    """The YAML mapping of `path` ({} when None); a key that no class has is an error naming the file."""
    if not path:
        return {}
    with open(path, encoding="utf-8") as fh:
        values = yaml.safe_load(fh) or {}
    if not isinstance(values, dict):
        raise ValueError(f"{path}: expected a mapping of config fields, got {type(values).__name__}")
    check_known(values, classes, str(path), skip)
    return values


def build_config(cls: type, file_values: Mapping[str, Any], given: Mapping[str, Any], **fixed: Any) -> Any:
    """An instance of `cls`: defaults <- `file_values` <- `given` <- `fixed` (each only for `cls`'s fields)."""
    names = known_fields([cls])
    values = {k: v for k, v in {**file_values, **given}.items() if k in names}
    return cls(**(values | fixed))
