"""Settings of a verb from three places, one rule for the CLI and the Python API: the config dataclasses'
defaults, then a YAML file (`--config run.yaml` / `config="run.yaml"`), then the settings given by name (flags on
the command line, keyword arguments in Python). A key that no dataclass of the verb has is an error naming it.

    file = read_config_file("run.yaml", (TrainConfig, RewardModelConfig))
    config = build_config(TrainConfig, file, {"lr": 1e-5})

A config may hold another as a part (`decoding: DecodingConfig = part(DecodingConfig, temperature=0.7)`): the
part's fields are settings of the holder by their own names, flat (`--temperature`, `temperature: 0.7`,
`temperature=0.7`), and the holder's instance is built with the part inside (`config_fields`, `config_values`).

Values are checked where the settings are made, before any work: each value's type by `build_config` (an error in a
YAML file names its `file:line`), each numeric setting's range by the config's `__post_init__` (`check_limits`: the
`Range` in each field's metadata, `field_help(..., range=SEED)`; a field without one has none).
"""

import dataclasses
import functools
import math
import numbers
import os
import types
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Union, get_args, get_origin, get_type_hints

import yaml

__all__ = ["BATCH_SIZE", "COUNT", "FRACTION", "LIMIT", "LR", "MAX_NEW_TOKENS", "MAX_SAMPLES", "NON_NEGATIVE",
           "SAMPLES", "SEED", "TEMPERATURE", "THREADS", "TOP_P", "ConfigField", "Range", "SettingError", "build_config",
           "check_limits", "comma_list", "config_fields", "config_values", "field_help", "field_range",
           "known_fields", "parse_range", "part", "read_config_file"]

MAX_SAMPLES = 4096  # K: the samples of one prompt are decoded and held together


class SettingError(ValueError):
    """A setting out of its range or of the wrong type; `name` is the field."""

    def __init__(self, name: str, message: str):
        super().__init__(message)
        self.name = name


@dataclass(frozen=True)
class Range:
    """Allowed values of a numeric setting: `low <= v <= high` (`low` excluded when `open_low`); None: unbounded.
    `note` says why, in the error."""

    low: float | None = None
    high: float | None = None
    open_low: bool = False
    note: str = ""

    def text(self) -> str:
        lo = None if self.low is None else (f"above {self.low}" if self.open_low else f"at least {self.low}")
        hi = None if self.high is None else f"at most {self.high}"
        return " and ".join(x for x in (lo, hi) if x) + (f" ({self.note})" if self.note else "")

    def holds(self, v: float) -> bool:
        if self.low is not None and (v <= self.low if self.open_low else v < self.low):
            return False
        return self.high is None or v <= self.high


# ranges that many fields take (`field_help(..., range=COUNT)`)
SAMPLES = Range(1, MAX_SAMPLES, note="samples per prompt: they are decoded and held together")
SEED = Range(0, 2**32 - 1)
LIMIT = Range(1, note="leave it unset for all")
THREADS = Range(0, 4096, note="0: torch's default")
LR = Range(0, 10, open_low=True)
FRACTION = Range(0, 1)
COUNT = Range(1)  # counts and sizes
NON_NEGATIVE = Range(0)
TEMPERATURE = Range(0, 100)
TOP_P = Range(0, 1, open_low=True)
MAX_NEW_TOKENS = Range(1, 131072)
BATCH_SIZE = Range(1, 65536)

RANGE_FIELDS = ("problems_range", "heldout_range")  # "start:stop" settings, checked by parse_range


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def comma_list(value: str | Sequence[str]) -> list[str]:
    """A list setting given as one string or as a list: "ig, mcnig" or ["ig", "mcnig"] -> ["ig", "mcnig"] (blank
    items dropped)."""
    return [v.strip() for v in (value.split(",") if isinstance(value, str) else value) if v.strip()]


def parse_range(text: str | None, name: str = "problems_range") -> slice:
    """'0:500' -> slice(0, 500); '500:' -> slice(500, None); None or '' -> everything. Bounds are whole numbers
    at least 0 and start < stop: anything else is a SettingError naming the setting."""
    if not text:
        return slice(None)
    start, sep, stop = str(text).partition(":")
    try:
        a = int(start) if start.strip() else None
        b = int(stop) if stop.strip() else None
    except ValueError:
        raise SettingError(name, f"{_flag(name)} {text!r}: expected START:STOP problem indices, e.g. 0:500 or "
                                 "100:") from None
    if not sep:
        raise SettingError(name, f"{_flag(name)} {text!r}: expected START:STOP (with a colon), e.g. 0:{text}")
    if (a is not None and a < 0) or (b is not None and b < 0):
        raise SettingError(name, f"{_flag(name)} {text!r}: indices must be 0 or more")
    if a is not None and b is not None and a >= b:
        raise SettingError(name, f"{_flag(name)} {text!r}: start must be below stop (it selects nothing)")
    return slice(a, b)


def check_limits(cfg: Any) -> None:
    """Hold every numeric field of the dataclass instance `cfg` to its range (`field_range`), refuse NaN and
    infinities, and parse its range fields; a SettingError names the first setting that fails. Called by the
    configs' `__post_init__`."""
    for f in dataclasses.fields(cfg):
        value = getattr(cfg, f.name)
        if f.name in RANGE_FIELDS:
            parse_range(value, f.name)
            continue
        for v in value if isinstance(value, list | tuple) else [value]:
            if isinstance(v, bool) or not isinstance(v, int | float):
                continue
            if isinstance(v, float) and not math.isfinite(v):
                raise SettingError(f.name, f"{_flag(f.name)} {v}: must be a finite number")
            rng = field_range(f)
            if rng is not None and not rng.holds(v):
                raise SettingError(f.name, f"{_flag(f.name)} {v}: must be {rng.text()}")


def field_help(text: str, resume: str | None = None, range: Range | None = None, role: str | None = None
               ) -> dict[str, Any]:
    """The metadata of a config field whose flag help is `text`: `field(default=..., metadata=field_help("..."))`;
    `resume`: how a re-run's resume check treats it (`data.manifest.may_change`); `range`: its values
    (`check_limits`); `role`: "input", "output" or "output-dir", the path the verb claims (`data.outputs.claims`)."""
    return ({"help": text} | ({"resume": resume} if resume else {}) | ({"range": range} if range is not None else {})
            | ({"role": role} if role else {}))


def field_range(f: dataclasses.Field) -> Range | None:
    """The range of the config field `f` (its metadata's "range"), None where it has none."""
    return f.metadata.get("range")


def part(cls: type, helps: Mapping[str, str] | None = None, **defaults: Any) -> Any:
    """A config field that holds the config dataclass `cls` (module doc): `defaults` are the holder's defaults of
    the part's fields, `helps` its helps of them (e.g. PUM's continuation temperature, 0.7 after A.3)."""
    return dataclasses.field(default_factory=functools.partial(cls, **defaults),
                             metadata={"part": cls, "helps": dict(helps or {})})


@dataclass(frozen=True)
class ConfigField:
    """A setting of a config class, a field of its own or of a part it holds: `name` is its flag's, its YAML key's
    and its keyword argument's; `field` its dataclass field (metadata: help, range, resume, const); `default` the
    holder's (MISSING where there is none)."""

    name: str
    field: dataclasses.Field
    hint: Any
    default: Any
    help: str


def config_fields(cls: type, held: Any = None) -> list[ConfigField]:
    """The settings of the config dataclass `cls` in field order, each part's fields in its place with the
    holder's defaults and helps (`held`: the part instance the defaults come from); two of one name are an
    error."""
    hints, out = get_type_hints(cls), []
    for f in dataclasses.fields(cls):
        if "part" in f.metadata:
            inner = config_fields(f.metadata["part"], f.default_factory() if held is None else getattr(held, f.name))
            helps = f.metadata["helps"]
            if unknown := set(helps) - {c.name for c in inner}:
                raise TypeError(f"{cls.__name__}.{f.name}: helps of no setting of the part: {sorted(unknown)}")
            out += [dataclasses.replace(c, help=helps.get(c.name, c.help)) for c in inner]
            continue
        if held is not None:
            default = getattr(held, f.name)
        else:
            default = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
        out.append(ConfigField(f.name, f, hints[f.name], default, f.metadata.get("help", "")))
    names = [c.name for c in out]
    if twice := sorted({name for name in names if names.count(name) > 1}):
        raise TypeError(f"{cls.__name__}: settings {twice} named twice (a field and a part's, or two parts')")
    return out


def config_values(cfg: Any) -> dict[str, Any]:
    """`dataclasses.asdict` of the config instance `cfg` by setting name (its parts' fields in their place)."""
    return _flat(type(cfg), dataclasses.asdict(cfg))


def _flat(cls: type, values: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        out |= _flat(f.metadata["part"], values[f.name]) if "part" in f.metadata else {f.name: values[f.name]}
    return out


def known_fields(classes: Iterable[type], skip: Iterable[str] = ()) -> set[str]:
    """The setting names of the config dataclasses `classes` (`config_fields`), less `skip`."""
    return {c.name for cls in classes for c in config_fields(cls)} - set(skip)


class ConfigValues(dict):
    """The mapping of a config file, with `where[key]` = "file:line" of each key."""

    where: dict[str, str]


def read_config_file(path: str | None, classes: tuple[type, ...], skip: tuple[str, ...] = ()) -> dict[str, Any]:
    """The YAML mapping of `path` ({} when None); a key that no class has is an error naming the file, a file that
    is not YAML text (binary, a syntax error, a directory) an error naming `file:line`."""
    if not path:
        return {}
    if os.path.isdir(path):
        raise ValueError(f"{path}: is a directory, expected a YAML config file")
    with open(path, "rb") as fh:
        raw = fh.read()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw[: e.start].count(b"\n") + 1
        raise ValueError(f"{path}:{line}: not a YAML text file (byte {raw[e.start]:#04x} is not UTF-8)") from None
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        values = yaml.safe_load(text) or {}
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None) or getattr(e, "context_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        raise ValueError(f"{where}: invalid YAML ({problem})") from None
    if not isinstance(values, dict):
        raise ValueError(f"{path}: expected a mapping of config fields, got {type(values).__name__}")
    lines = {str(k.value): f"{path}:{k.start_mark.line + 1}" for k, _ in getattr(node, "value", [])
             if isinstance(node, yaml.MappingNode)}
    known = known_fields(classes, skip)
    if unknown := set(values) - known:
        raise ValueError(f"{path}: unknown keys {sorted(unknown)}; known: {sorted(known)}")
    out = ConfigValues(values)
    out.where = lines
    return out


def _type_name(tp: Any) -> str:
    return {int: "a whole number", float: "a number", str: "text (quote it in YAML)", bool: "true or false",
            dict: "a mapping", list: "a list"}.get(tp, getattr(tp, "__name__", str(tp)))


def _fits(value: Any, tp: Any) -> tuple[bool, Any]:
    """(whether `value` is of the type hint `tp`, the value converted: an int where a float goes is a float)."""
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        if value is None and type(None) in get_args(tp):
            return True, None
        fits = (_fits(value, arg) for arg in get_args(tp) if arg is not type(None))
        return next((fit for fit in fits if fit[0]), (False, value))
    if tp is Any:
        return True, value
    if origin in (list, tuple):
        if isinstance(value, str) and get_args(tp) and get_args(tp)[0] is str:  # "ig,mcnig" for ["ig", "mcnig"]
            value = comma_list(value)
        if isinstance(value, Mapping) and get_args(tp) and get_args(tp)[0] is str:  # {"PRM": path}: NAME=PATH items
            value = [f"{k}={os.fspath(v)}" for k, v in value.items()]
        if not isinstance(value, list | tuple):
            return False, value
        fitted = [_fits(v, get_args(tp)[0]) if get_args(tp) else (True, v) for v in value]
        return (True, [v for _, v in fitted]) if all(ok for ok, _ in fitted) else (False, value)
    if origin is dict or tp is dict:
        return isinstance(value, dict), value
    if tp is bool:
        return isinstance(value, bool), value
    if tp in (int, float):  # numpy numbers too (an API caller's values); an int where a float goes is a float
        ok = isinstance(value, numbers.Integral if tp is int else numbers.Real) and not isinstance(value, bool)
        return ok, tp(value) if ok else value
    if tp is str:
        if isinstance(value, list | tuple) and all(isinstance(v, int | str) for v in value):  # [1, 2, 4]: "1,2,4"
            return True, ",".join(map(str, value))
        return isinstance(value, str | os.PathLike), str(value) if isinstance(value, os.PathLike) else value
    return True, value


def _typed(hints: Mapping[str, Any], values: Mapping[str, Any], where: Mapping[str, str]) -> dict[str, Any]:
    """`values` checked against the types `hints` (a SettingError naming `where[key]`, the file:line of a config
    file's key, or the setting)."""
    out = {}
    for name, value in values.items():
        ok, converted = _fits(value, hints.get(name, Any))
        if not ok:
            tp = hints[name]
            want = " or ".join(_type_name(a) for a in get_args(tp) if a is not type(None)) if get_origin(tp) in (
                Union, types.UnionType) else _type_name(get_origin(tp) or tp)
            at = f"{where[name]}: " if name in where else ""
            raise SettingError(name, f"{at}{name}: expected {want}, got {type(value).__name__} {value!r}")
        out[name] = converted
    return out


def build_config(cls: type, file_values: Mapping[str, Any], given: Mapping[str, Any], **fixed: Any) -> Any:
    """An instance of `cls`: defaults <- `file_values` <- `given` <- `fixed` (each only for `cls`'s fields).
    Each value is checked against its field's type, and the instance against its ranges (`check_limits`, from its
    `__post_init__`); an error about a value from the file names its `file:line`."""
    hints = {c.name: c.hint for c in config_fields(cls)}
    where = dict(getattr(file_values, "where", {}))
    for k in given:
        where.pop(k, None)  # a flag or keyword argument overrides the file's value
    values = _typed(hints, {k: v for k, v in {**file_values, **given}.items() if k in hints}, where)
    try:
        return _instance(cls, values | {k: v for k, v in fixed.items() if k in hints})
    except SettingError as e:
        if e.name in where and not str(e).startswith(where[e.name]):
            raise SettingError(e.name, f"{where[e.name]}: {e}") from None
        raise


def _instance(cls: type, values: Mapping[str, Any], held: Any = None) -> Any:
    """An instance of `cls` from `values` by setting name; each part is the holder's default part (`held`'s, for a
    part) with the values of its fields."""
    own = {}
    for f in dataclasses.fields(cls):
        if "part" in f.metadata:
            own[f.name] = _instance(f.metadata["part"], values,
                                    f.default_factory() if held is None else getattr(held, f.name))
        elif f.name in values:
            own[f.name] = values[f.name]
    return cls(**own) if held is None else dataclasses.replace(held, **own)


def build_configs(classes: Sequence[type], settings: Mapping[str, Any], config: str | None = None,
                  fixed: Mapping[str, Any] | None = None, skip: Sequence[str] = (),
                  defaults: Mapping[str, Any] | None = None) -> list[Any]:
    """The one settings path of every verb, CLI and API alike: one instance of each dataclass of `classes`,
    defaults (the dataclasses', then the verb's own `defaults`) <- the YAML file `config` (read once; its keys may
    be fields of any of `classes`) <- `settings` (flags given, or keyword arguments) <- `fixed` (`defaults` and
    `fixed` each value only for the classes that have the field). A name no class has is a TypeError (a flag parser
    never passes one)."""
    classes = tuple(classes)
    if unknown := set(settings) - known_fields(classes, skip):
        raise TypeError(f"unknown settings {sorted(unknown)}; known: {sorted(known_fields(classes, skip))}")
    file_values = read_config_file(None if config is None else str(config), classes, tuple(skip))
    for k, v in (defaults or {}).items():
        file_values.setdefault(k, v)
    return [build_config(cls, file_values, settings, **(fixed or {})) for cls in classes]
