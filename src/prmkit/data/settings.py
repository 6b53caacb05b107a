"""Settings of a verb from three places, one rule for the CLI and the Python API: the config dataclasses'
defaults, then a YAML file (`--config run.yaml` / `config="run.yaml"`), then the settings given by name (flags on
the command line, keyword arguments in Python). A key that no dataclass of the verb has is an error naming it.

    file = read_config_file("run.yaml", (TrainConfig, RewardModelConfig))
    config = build_config(TrainConfig, file, {"lr": 1e-5})

A field may keep an old name as a deprecated alias (`metadata={"aliases": ("rollouts",)}` on `k`): a YAML key or a
keyword argument of that name sets the field, with a one-line note on stderr (the CLI adds the alias as a flag).
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Iterable, Mapping
from typing import Any

import yaml

__all__ = ["build_config", "check_known", "field_aliases", "field_help", "known_fields", "read_config_file",
           "resolve_aliases"]


def field_help(text: str) -> dict[str, str]:
    """The metadata of a config field whose flag help is `text`: `field(default=..., metadata=field_help("..."))`."""
    return {"help": text}


def field_aliases(classes: Iterable[type]) -> dict[str, str]:
    """{deprecated name: field name}: the old names that the fields of the dataclasses `classes` still accept."""
    return {alias: f.name for cls in classes for f in dataclasses.fields(cls)
            for alias in f.metadata.get("aliases", ())}


def resolve_aliases(settings: Mapping[str, Any], classes: Iterable[type], where: str = "prmkit") -> dict[str, Any]:
    """`settings` with each deprecated name (`field_aliases`) replaced by its field's name, and a one-line note on
    stderr for each; the old and the new name both given is an error naming `where`."""
    out = dict(settings)
    for old, new in field_aliases(classes).items():
        if old in out:
            if new in out:
                raise ValueError(f"{where}: '{old}' is a deprecated name of '{new}': give one of them, not both")
            print(f"{where}: note: '{old}' is deprecated, use '{new}' (the same setting)", file=sys.stderr)
            out[new] = out.pop(old)
    return out


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
    values = resolve_aliases(values, classes, str(path))
    check_known(values, classes, str(path), skip)
    return values


def build_config(cls: type, file_values: Mapping[str, Any], given: Mapping[str, Any], **fixed: Any) -> Any:
    """An instance of `cls`: defaults <- `file_values` <- `given` <- `fixed` (each only for `cls`'s fields)."""
    names = known_fields([cls])
    values = {k: v for k, v in {**file_values, **given}.items() if k in names}
    return cls(**(values | fixed))
