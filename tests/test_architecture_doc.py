"""docs/architecture.md's registry table is the code's: every registry it names holds exactly the names it lists."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

DOC = Path(__file__).resolve().parents[1] / "docs" / "architecture.md"


def registry_rows() -> dict[str, list[str]]:
    """`| `module.NAME` | a, b, c |` rows of the "## Registries" section."""
    section = DOC.read_text(encoding="utf-8").split("## Registries", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([\w.]+)` \| ([^|]+) \|$", section, re.M)
    return {path: [n.strip() for n in names.split(",")] for path, names in rows}


def test_the_registry_table_lists_what_each_registry_holds():
    """Read in a fresh interpreter: the suite's own examples register toy entries (tests/label/step_length.py)."""
    rows = registry_rows()
    assert len(rows) >= 14, "the table lost rows"
    code = ("import importlib, json, sys\n"
            "paths = json.loads(sys.argv[1])\n"
            "print(json.dumps({p: list(getattr(importlib.import_module(p.rpartition('.')[0]), p.rpartition('.')[2]))"
            " for p in paths}))")
    done = subprocess.run([sys.executable, "-c", code, json.dumps(list(rows))], capture_output=True, text=True,
                          check=True)
    for path, names in json.loads(done.stdout).items():
        assert names == rows[path], f"docs/architecture.md lists {rows[path]} for {path}; the code has {names}"


def test_the_check_fails_on_a_stale_row(monkeypatch):
    from prmkit.label import registry

    monkeypatch.setitem(registry.LABELERS, "new-labeler", registry.LABELERS["ig"])
    rows = registry_rows()
    assert list(registry.LABELERS) != rows["prmkit.label.registry.LABELERS"]
