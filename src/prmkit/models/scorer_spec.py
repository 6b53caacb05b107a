"""Scorer specs `[KIND:]PATH[,KEY=VALUE]...`: one string naming a step scorer's kind, where it is, and its options."""

import json
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from prmkit.data.manifest import keep_file_settings
from prmkit.models.scorer import SCORERS, StepScorer, load_scorer

__all__ = ["keep_scorer_file", "load_scorer_spec", "parse_named_specs", "parse_options", "parse_scorer_spec",
           "scorer_identity"]

DEFAULT_KIND = "reward-model"


def _value(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def parse_scorer_spec(spec: str, kind: str | None = None) -> tuple[str, str, dict[str, Any]]:
    """(kind, path, options) of `spec`, each value read as JSON when it parses; `kind`: for a spec that names none
    (default `reward-model`). Example: "token-classification:runs/q,sep=<extra_0>,positive=1" ->
    ("token-classification", "runs/q", {"sep": "<extra_0>", "positive": 1})."""
    head, colon, rest = spec.partition(":")
    named = head if colon and head in SCORERS else None
    if colon and not named and re.fullmatch(r"[A-Za-z][\w-]+", head) and not Path(spec).exists():
        hint = f" (a server's URL is the kind openai-pooling: openai-pooling:{spec})" if head in ("http", "https") \
            else ""
        raise ValueError(f"scorer spec '{spec}': unknown scorer kind '{head}'{hint}; choose from {', '.join(SCORERS)}")
    body = rest if named else spec
    if named and kind and kind != DEFAULT_KIND and kind != named:
        raise ValueError(f"scorer spec '{spec}' names the kind {named}, but --scorer says {kind}")
    path, *pairs = body.split(",")
    options: dict[str, Any] = {}
    for pair in pairs:
        key, eq, value = pair.partition("=")
        if not eq or not key.strip():
            raise ValueError(f"scorer spec '{spec}': '{pair}' is not KEY=VALUE")
        options[key.strip()] = _value(value)
    return named or kind or DEFAULT_KIND, path, options


def scorer_identity(spec: str, kind: str | None = None) -> dict[str, Any]:
    """The scorer of `spec` as an output's settings name it: its kind, place (a local path resolved) and options."""
    kind, path, options = parse_scorer_spec(spec, kind)
    return {"scorer": kind, "model": str(Path(path).resolve()) if Path(path).exists() else path, "options": options}


def keep_scorer_file(output: str | os.PathLike[str], spec: str | os.PathLike[str] | None, kind: str | None,
                     settings: Mapping[str, Any], made: str = "scored",
                     hint: str = "use a new --output to score again, or the same settings to resume") -> None:
    """Keep the scorer's identity (under "prm") and `settings` beside `output`; refuse a re-run with another scorer."""
    prm = scorer_identity(os.fspath(spec), kind) if spec else None
    keep_file_settings(output, {"prm": prm} | dict(settings), made, hint)


def parse_options(text: str | Mapping[str, Any] | None) -> dict[str, Any]:
    """A JSON object given inline, as the path of a .json file, or as a mapping -> a dict (None -> {})."""
    if not text:
        return {}
    if isinstance(text, Mapping):
        return dict(text)
    raw = Path(text).read_text(encoding="utf-8") if not text.lstrip().startswith("{") and os.path.isfile(text) \
        else text
    try:
        data = json.loads(raw)
    except ValueError as e:
        raise ValueError(f"scorer options {text!r}: not a JSON object ({e})") from None
    if not isinstance(data, dict):
        raise ValueError(f"scorer options {text!r}: a JSON object is needed, got {type(data).__name__}")
    return data


def load_scorer_spec(spec: str | os.PathLike[str], kind: str | None = None,
                     options: str | Mapping[str, Any] | None = None) -> StepScorer:
    """The step scorer that `spec` names; `options` (a JSON object) are overridden by the spec's own."""
    name, path, inline = parse_scorer_spec(os.fspath(spec), kind)
    return load_scorer(path, name, parse_options(options) | inline)


def parse_named_specs(items: Sequence[str] | Mapping[str, str]) -> dict[str, str]:
    """NAME=SPEC items -> {name: spec} (a mapping is taken as it is); names must be unique and non-empty."""
    if isinstance(items, Mapping):
        return {str(k): str(v) for k, v in items.items()}
    out: dict[str, str] = {}
    for item in items:
        name, eq, spec = item.partition("=")
        if not eq or not name.strip() or not spec.strip() or ":" in name or "," in name:
            raise ValueError(f"'{item}' is not NAME=SPEC (e.g. qwen=token-classification:runs/qwen_prm)")
        if name.strip() in out:
            raise ValueError(f"scorer name '{name.strip()}' is given twice")
        out[name.strip()] = spec.strip()
    return out
