"""The record of an output: its manifest (which verb made it, with what settings, from which inputs, what it wrote
and what it cost), read by the verbs that take the output in, and the settings a re-run must share to resume it.
Outputs written before manifests are read from their old files by `_BEFORE_MANIFESTS` alone (docs/formats.md)."""

import dataclasses
import json
import os
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from prmkit.data.jsonl import iter_json
from prmkit.data.outputs import atomic_path
from prmkit.data.settings import config_fields, config_values

__all__ = ["MANIFEST", "Manifest", "ManifestError", "fixed_settings", "keep_file_settings", "keep_settings",
           "manifest_path", "may_change", "read_manifest", "settings_beside", "settings_diff", "write_manifest"]

MANIFEST = "manifest.json"  # a directory output's manifest; a file output's is `<file>.manifest.json`
PathLike = str | os.PathLike[str]


class ManifestError(ValueError):
    """A manifest that cannot be read (not JSON, or lacking a field)."""


@dataclass(frozen=True)
class Manifest:
    """What made an output (module doc). `prmkit` is the version that wrote it; None for an output written before
    manifests, whose record is read from its old files."""

    kind: str  # the verb: generate, pum, sft, ...
    settings: dict[str, Any]  # the run's config, as a dict
    inputs: dict[str, Any]  # role -> a path (or a list of them) as given
    outputs: dict[str, Path]  # role -> the path the run wrote
    cost: dict[str, Any]  # what the verb measured: tokens, seconds, ...
    prmkit: str | None = None

    def output(self, role: str) -> Path | None:
        """The path of the output `role` (None: the run wrote none)."""
        return self.outputs.get(role)

    def rows(self, role: str) -> list[dict[str, Any]]:
        """The records of the JSONL output `role` ([] where the run wrote none, or it is gone)."""
        path = self.outputs.get(role)
        return [row for _, row in iter_json(path)] if path is not None and path.is_file() else []


def manifest_path(output: PathLike) -> Path:
    """`<dir>/manifest.json` for a directory `output`, else `<file>.manifest.json` beside it (written yet or not)."""
    path = Path(output)
    return path / MANIFEST if path.is_dir() else path.with_name(f"{path.name}.manifest.json")


def _stored(path: PathLike, folder: Path) -> str:
    """`path` as a manifest in `folder` keeps it: relative when under the folder, else absolute."""
    full = Path(path).absolute()
    return str(full.relative_to(folder.absolute())) if full.is_relative_to(folder.absolute()) else str(full)


def write_manifest(output: PathLike, kind: str, settings: Any, inputs: Mapping[str, Any] | None = None,
                   outputs: Mapping[str, PathLike] | None = None, cost: Mapping[str, Any] | None = None) -> Path:
    """Write the manifest of `output` (atomic; `settings` a config dataclass or a dict); returns its path."""
    path = manifest_path(output)
    if dataclasses.is_dataclass(settings) and not isinstance(settings, type):
        settings = dataclasses.asdict(settings)
    record = {"kind": kind, "settings": dict(settings), "inputs": dict(inputs or {}),
              "outputs": {role: _stored(p, path.parent) for role, p in (outputs or {}).items()},
              "cost": dict(cost or {}), "prmkit": _version()}
    with atomic_path(path) as tmp:
        tmp.write_text(json.dumps(record, indent=1, default=str) + "\n", encoding="utf-8")
    return path


def _version() -> str | None:
    try:
        return metadata.version("prmkit")
    except metadata.PackageNotFoundError:  # a source tree that is not installed
        return None


def read_manifest(output: PathLike) -> Manifest | None:
    """The record of `output`: its manifest, else its directory's when that names it as an output, else what its old
    files say (`_BEFORE_MANIFESTS`); None for a path that is no output of prmkit (or none at all: a model's name).
    A manifest that cannot be read is a ManifestError naming it."""
    path = Path(output)
    if not path.exists():
        return None
    if (own := manifest_path(path)).is_file() and (made := _read(own)) is not None:
        return made
    folder = path.parent / MANIFEST
    if path.is_file() and folder.is_file() and (made := _read(folder)) is not None and any(
            p.resolve() == path.resolve() for p in made.outputs.values()):
        return made
    return next((m for reader in _BEFORE_MANIFESTS if (m := reader(path)) is not None), None)


def _read(path: Path) -> Manifest | None:
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise _unreadable(path, str(e)) from None
    fields = {"kind": str, "settings": dict, "inputs": dict, "outputs": dict, "cost": dict}
    if not isinstance(record, dict):
        raise _unreadable(path, "not a JSON object")
    if "kind" not in record and "prmkit" not in record:  # another tool's manifest.json (in a model's folder)
        return None
    if bad := [k for k, t in fields.items() if not isinstance(record.get(k), t)]:
        raise _unreadable(path, f"no {', '.join(bad)}")
    if bad := [role for role, p in record["outputs"].items() if not isinstance(p, str)]:
        raise _unreadable(path, f"output {bad[0]!r} is not a path")
    outputs = {role: path.parent / p for role, p in record["outputs"].items()}  # an absolute path stays as it is
    return Manifest(record["kind"], record["settings"], record["inputs"], outputs, record["cost"], record.get("prmkit"))


def _unreadable(path: Path, why: str) -> ManifestError:
    return ManifestError(f"{path}: not a readable manifest ({why}); rerun the verb that wrote the output beside it, "
                         "or remove the file")


# Outputs written before manifests: what each verb's old files said. Asked by `read_manifest` only, and only for an
# output that has no manifest.

def _old_warm_start(path: Path) -> Manifest | None:
    """`prmkit sft` kept its settings (the template among them) in `sft_settings.json`, its data in `sft_data.jsonl`."""
    settings = path / "sft_settings.json"
    if not settings.is_file():
        return None
    return Manifest("sft", json.loads(settings.read_text(encoding="utf-8")), {}, {"data": path / "sft_data.jsonl"}, {})


def _old_generate(path: Path) -> Manifest | None:
    """`prmkit generate` wrote its unfiltered samples beside its output, `<name>.raw.jsonl`: the output was filtered
    when that file holds more samples."""
    raw = path.with_suffix(".raw.jsonl")
    if not path.is_file() or not raw.is_file() or raw.resolve() == path.resolve():
        return None

    def samples(p: Path) -> int:
        return sum(len(obj.get("traces", ())) for _, obj in iter_json(p))

    return Manifest("generate", {"filter": samples(raw) > samples(path)}, {}, {"pools": path, "raw": raw}, {})


def _old_pum(path: Path) -> Manifest | None:
    """`prmkit pum` wrote its students' cost into `report.json` beside its pairs."""
    report = path.parent / "report.json"
    if not path.is_file() or not report.is_file():
        return None
    held = json.loads(report.read_text(encoding="utf-8"))
    if not isinstance(held, dict) or "pair_counts" not in held:  # another verb's report
        return None
    students = list(held.get("students", {}).values())
    cost = {k: sum(int(s.get(k, 0)) for s in students) for k in ("tokens_read", "tokens_generated")}
    return Manifest("pum", held.get("config", {}), {}, {"pairs": path}, cost | {"seconds": held.get("seconds")})


_BEFORE_MANIFESTS: tuple[Callable[[Path], Manifest | None], ...] = (_old_warm_start, _old_generate, _old_pum)


# The settings a resumable output was made with: a re-run with others is refused, naming each difference.

def may_change(*configs: Any) -> set[str]:
    """The fields of the dataclasses `configs` that a resumed run may change: those whose metadata has "resume"
    (`may-change`, or `scorer`: compared resolved); every other field must be the same."""
    return {s.name for c in configs for s in config_fields(c if isinstance(c, type) else type(c))
            if s.field.metadata.get("resume")}


def fixed_settings(config: Any) -> dict[str, Any]:
    """The settings of the dataclass instance `config` that make a run this run: every field but `may_change`'s."""
    return {k: v for k, v in config_values(config).items() if k not in may_change(config)}


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


def keep_settings(path: PathLike, settings: Mapping[str, Any], what: str, *, skip: Collection[str] = (),
                  upgrade: Callable[[dict[str, Any]], dict[str, Any]] | None = None) -> None:
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
