"""Shared CLI plumbing: every field of a config dataclass becomes a flag, and `--config file.yaml` fills it."""

from __future__ import annotations

import argparse
import dataclasses
import types
from typing import Any, Union, get_args, get_origin, get_type_hints

import yaml

__all__ = ["add_config_arguments", "config_from_args"]


def _scalar(tp: Any) -> Any:
    if get_origin(tp) in (Union, types.UnionType):
        tp = next(a for a in get_args(tp) if a is not type(None))
    return tp


def add_config_arguments(p: argparse.ArgumentParser, cls: type) -> None:
    """Add `--field-name` for each field of the dataclass `cls` (help text from the field's metadata)."""
    p.add_argument("--config", help="YAML file whose keys are the fields below; flags override it")
    hints = get_type_hints(cls)
    for f in dataclasses.fields(cls):
        flag = "--" + f.name.replace("_", "-")
        tp = _scalar(hints[f.name])
        help_text = f"{f.metadata.get('help', '')} (default: {f.default!r})"
        if tp is bool:
            p.add_argument(flag, dest=f.name, action=argparse.BooleanOptionalAction, default=None, help=help_text)
        else:
            p.add_argument(flag, dest=f.name, type=tp, default=None, help=help_text)


def config_from_args(cls: type, args: argparse.Namespace) -> Any:
    """Defaults <- YAML file <- flags given on the command line."""
    values: dict[str, Any] = {}
    if getattr(args, "config", None):
        with open(args.config, encoding="utf-8") as fh:
            values = yaml.safe_load(fh) or {}
        known = {f.name for f in dataclasses.fields(cls)}
        if unknown := set(values) - known:
            raise ValueError(f"{args.config}: unknown keys {sorted(unknown)}; known: {sorted(known)}")
    for f in dataclasses.fields(cls):
        if getattr(args, f.name, None) is not None:
            values[f.name] = getattr(args, f.name)
    return cls(**values)
