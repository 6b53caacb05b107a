"""docs/architecture.md's registry table is the code's: every registry it names holds exactly the names it lists."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[1] / "docs" / "architecture.md"


def registry_rows() -> dict[str, list[str]]:
    """`| `module.NAME` | a, b, c |` rows of the "## Registries" section."""
    section = DOC.read_text(encoding="utf-8").split("## Registries", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([\w.]+)` \| ([^|]+) \|$", section, re.M)
    return {path: [n.strip() for n in names.split(",")] for path, names in rows}


def test_the_registry_table_lists_what_each_registry_holds():
    rows = registry_rows()
    assert len(rows) >= 14, "the table lost rows"
    for path, names in rows.items():
        module, _, attr = path.rpartition(".")
        registry = getattr(importlib.import_module(module), attr)
        assert list(registry) == names, f"docs/architecture.md lists {names} for {path}; the code has {list(registry)}"


def test_the_check_fails_on_a_stale_row(monkeypatch):
    from prmkit.label import registry

    monkeypatch.setitem(registry.LABELERS, "new-labeler", registry.LABELERS["ig"])
    rows = registry_rows()
    assert list(registry.LABELERS) != rows["prmkit.label.registry.LABELERS"]
