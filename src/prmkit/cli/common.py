"""Shared CLI plumbing, the only flag builder: every field of a config dataclass becomes a flag, and
`--config file.yaml` fills the same fields from a file (flags win over the file, the file over the defaults).

A verb may take several dataclasses (e.g. `prmkit train`: TrainConfig and RewardModelConfig): one `--config`
file then holds the fields of all of them, and a key that none of them has is an error. A field name that several
of them have is one flag, which sets that field in each (e.g. `prmkit label --model`: every labeler's model).
"""

import argparse
import dataclasses
import re
import types
from typing import Any, Union, get_args, get_origin

from prmkit.data.settings import ConfigField, build_configs, config_fields, known_fields

__all__ = ["add_config_arguments", "config_from_args", "given_settings"]


def _scalar(tp: Any) -> Any:
    if get_origin(tp) in (Union, types.UnionType):
        tp = next(a for a in get_args(tp) if a is not type(None))
    return tp


def _default_text(default: Any, help_text: str) -> str:
    """" (default: X)" for the flag's help, or "" where the help says it already or a default would mislead: a field
    without one, a required field (its help says "required"), a help that states the default ("default: ..."), a
    None default whose meaning the help gives ("None: all", "unset: ...", "default built in")."""
    if default is dataclasses.MISSING:
        return ""
    said = help_text.lower()
    if re.search(r"\brequired\b", said) or "default:" in said:
        return ""
    if default is None and re.search(r"\b(default|none|unset)\b", said):
        return ""
    return f" (default: {default!r})"


def add_config_arguments(p: argparse.ArgumentParser, *classes: type) -> None:
    """Add `--config` and `--field-name` for each setting of the dataclasses `classes` (module doc; a shared name's
    help is the first class's); a field whose metadata has "const" takes an optional value (the flag alone sets
    `const`)."""
    p.add_argument("--config", help="YAML file whose keys are the fields below; flags override it")
    seen: set[str] = set()
    for cls in classes:
        for setting in config_fields(cls):  # a part's fields are flags of their own (prmkit.data.settings.part)
            if setting.name not in seen:
                seen.add(setting.name)
                _add_flag(p, setting, setting.help)
    p.set_defaults(_config_classes=tuple(classes))


def _add_flag(p: argparse.ArgumentParser, setting: ConfigField, text: str) -> None:
    """The flag of one setting, with the help `text` (add_config_arguments)."""
    name, metadata = setting.name, setting.field.metadata
    flag = "--" + name.replace("_", "-")
    tp = _scalar(setting.hint)
    text = text() if callable(text) else text  # a help that lists a registry when the parser is built
    if get_origin(tp) in (list, tuple):
        text = text.rstrip(".") + "; repeatable"
    elif "const" in metadata:
        text = text.rstrip(".") + f"; {flag} alone: {metadata['const']!r}"
    help_text = (text + _default_text(setting.default, text)).replace("%", "%%")
    if metadata.get("positional"):  # e.g. `prmkit search beam`, `prmkit payoff table ROW ROW`
        p.add_argument(name, metavar=name.upper(), nargs="+" if get_origin(tp) in (list, tuple) else None,
                       help=help_text)
    elif tp is bool:
        p.add_argument(flag, dest=name, action=argparse.BooleanOptionalAction, default=None, help=help_text)
    elif get_origin(tp) in (list, tuple):
        p.add_argument(flag, dest=name, type=get_args(tp)[0] if get_args(tp) else str, nargs="*", action="extend",
                       default=None, help=help_text)
    elif "const" in metadata:  # the flag alone means `const` (e.g. a bare --ray: "local")
        p.add_argument(flag, dest=name, type=tp, nargs="?", const=metadata["const"], default=None, help=help_text)
    else:
        p.add_argument(flag, dest=name, type=tp, default=None, help=help_text, required=metadata.get("required", False))


def given_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The config fields set by flags on the command line (those not given are None and left out): what the
    Python API receives as keyword arguments for the same run."""
    names = known_fields(getattr(args, "_config_classes", ()))
    return {name: getattr(args, name) for name in names if getattr(args, name, None) is not None}


def config_from_args(cls: type, args: argparse.Namespace) -> Any:
    """The instance of `cls` among the verb's configs, by the builder the Python API uses
    (`prmkit.data.settings.build_configs`): defaults <- `--config` YAML (read once) <- flags given."""
    classes = getattr(args, "_config_classes", ())
    if cls not in classes:
        raise TypeError(f"{cls.__name__} is not a config of this verb (add_config_arguments gave {classes})")
    return build_configs(classes, given_settings(args), getattr(args, "config", None))[classes.index(cls)]
