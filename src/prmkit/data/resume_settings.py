"""A resumable output continues only the run it was made with: its settings kept beside it, a re-run with others
refused naming each difference."""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from typing import Any

from prmkit.data.outputs import atomic_path

__all__ = ["fixed_settings", "keep_file_settings", "keep_settings", "may_change", "settings_beside", "settings_diff"]


def may_change(*configs: Any) -> set[str]:
    """The fields of the dataclasses `configs` that a resumed run may change: those whose metadata has "resume"
    (`may-change`, or `scorer`: compared resolved); every other field must be the same."""
    return {f.name for c in configs for f in dataclasses.fields(c) if f.metadata.get("resume")}


def fixed_settings(config: Any) -> dict[str, Any]:
    """The settings of the dataclass instance `config` that make a run this run: every field but `may_change`'s."""
    return {k: v for k, v in dataclasses.asdict(config).items() if k not in may_change(config)}


def settings_diff(old: Mapping[str, Any], new: Mapping[str, Any], skip: Collection[str] = (),
                  prefix: str = "", sep: str = " -> ") -> list[str]:
    """`key: old -> new` (`sep` between) for each differing setting, sorted by key; a missing key counts as None,
    nested dicts compare key by key (`outer.inner`), keys in `skip` are ignored."""
    out = []
    for key in sorted(set(old) | set(new)):
        if key in skip:
            continue
        a, b = old.get(key), new.get(key)
        if isinstance(a, Mapping) and isinstance(b, Mapping):
            out += settings_diff(a, b, prefix=f"{prefix}{key}.", sep=sep)
        elif a != b:
            out.append(f"{prefix}{key}: {a!r}{sep}{b!r}")
    return out


def keep_settings(path: str | os.PathLike[str], settings: Mapping[str, Any], what: str, *,
                  skip: Collection[str] = (), upgrade: Callable[[dict[str, Any]], dict[str, Any]] | None = None
                  ) -> None:
    """Refuse to continue an output (`path`'s folder) made with other settings, then write `settings` to `path`.
    `skip`: settings a resumed run may change; `upgrade(old)` fills in what an older file lacks before comparing."""
    path = Path(path)
    if path.is_file():
        old = json.loads(path.read_text(encoding="utf-8"))
        if upgrade is not None:
            old = upgrade(old)
        if diff := settings_diff(old, settings, skip):
            raise ValueError(f"{path.parent} holds {what} made with other settings ({', '.join(diff)}): choose "
                             "another --output")
    with atomic_path(path) as tmp:
        tmp.write_text(json.dumps(dict(settings), indent=1) + "\n", encoding="utf-8")


def settings_beside(output: str | os.PathLike[str]) -> Path:
    """Where the settings of a one-file output are kept: `scores.jsonl` -> `scores.settings.json`."""
    return Path(output).with_suffix(".settings.json")


def keep_file_settings(output: str | os.PathLike[str], settings: Mapping[str, Any], made: str, hint: str) -> None:
    """`keep_settings` for a one-file output, its settings in `settings_beside(output)`: an output with records
    made with other settings is refused; a setting one side lacks is not compared; written while the output is empty."""
    output, path = Path(output), settings_beside(output)
    if path.is_file() and output.is_file() and output.stat().st_size:
        try:
            old = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            old = {}
        if diff := settings_diff(old, settings, skip=set(old) ^ set(settings)):
            raise ValueError(f"{output} was {made} with other settings ({', '.join(diff)}); {hint}")
        return
    with atomic_path(path) as tmp:
        tmp.write_text(json.dumps(dict(settings), indent=2) + "\n", encoding="utf-8")
