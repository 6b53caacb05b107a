"""The settings a resumable output was made with, and the rule that a re-run may only continue the same run.

A long job (`prmkit bench`, `prmkit payoff run`, `prmkit sft`, `prmkit train --resume`, `prmkit label`) keeps
the settings that make its output what it is beside the output (a `settings.json`, or in its records). A re-run
with the same settings resumes; one with other settings would mix two runs in one place, so it is refused before
any work, naming each setting that differs:

    keep_settings(out / "settings.json", {"problems": 96, "seed": 51}, "a bench")
    # a re-run with problems=48: ValueError("runs/b holds a bench made with other settings (problems: 96 -> 48):
    #                                         choose another --output")

Which settings a re-run may change is said once, on the config's fields (`may_change`): metadata
`{"resume": "may-change"}` (how long it runs, how often it saves or logs, threads, where its output goes) or
`{"resume": "scorer"}` (a scorer, compared resolved: `models.scorer_spec.scorer_identity`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from typing import Any

from prmkit.data.outputs import atomic_path
from prmkit.data.settings import config_fields, config_values

__all__ = ["fixed_settings", "keep_file_settings", "keep_settings", "may_change", "settings_beside", "settings_diff"]


def may_change(*configs: Any) -> set[str]:
    """The one resume rule of every verb: the fields of the dataclasses `configs` (classes or instances) that a
    resumed run may change, those whose metadata has "resume" (module doc); every other field must be the same."""
    return {s.name for c in configs for s in config_fields(c if isinstance(c, type) else type(c))
            if s.field.metadata.get("resume")}


def fixed_settings(config: Any) -> dict[str, Any]:
    """The settings of the dataclass instance `config` that make a run this run: every field but `may_change`'s."""
    return {k: v for k, v in config_values(config).items() if k not in may_change(config)}


def settings_diff(old: Mapping[str, Any], new: Mapping[str, Any], skip: Collection[str] = (),
                  prefix: str = "", sep: str = " -> ") -> list[str]:
    """`key: old -> new` (`sep` between the values) for each setting that differs (a key on one side only counts
    as None on the other), sorted by key; nested dicts are compared key by key (`outer.inner: ...`); keys in `skip`
    are ignored."""
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
    """Refuse to continue an output (`path`'s folder) made with other settings, then (re)write `settings` to `path`
    (JSON, atomic). `skip`: settings a resumed run may change (a verb passes `may_change(config)`); `upgrade(old)`
    fills in what an older file lacks (a setting added since, at the value the older run used) before the
    comparison."""
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
    """The rule of `keep_settings` for a one-file output (`prmkit generate`'s raw file, `prmkit score`, `prmkit
    search`), its settings kept in `settings_beside(output)`: an output that holds records made with other settings
    ("`output` was `made` with other settings (...); `hint`") is refused; a setting that one side lacks (added since,
    or an older file's) is not compared. The settings are written when the output has no records yet."""
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
