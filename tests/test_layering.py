"""The package layout reads as the pipeline, and imports only run forwards along it (docs/architecture.md):

    data -> models -> verify -> domains -> generate -> label -> train -> evaluate / search -> rewards / rl
    -> experiments -> cli

A module may import from its own layer and from earlier ones, never from a later one. Imports are read with
`ast` (module level and inside functions alike), so a lazy import cannot hide a backward edge.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

LAYERS: dict[str, int] = {
    "data": 0, "models": 1, "verify": 2, "domains": 3, "generate": 4, "label": 5, "train": 6,
    "evaluate": 7, "search": 7, "rewards": 8, "rl": 8, "experiments": 9, "cli": 10,
}
TOP = max(LAYERS.values()) + 1  # prmkit/__init__.py: the Python API that mirrors the verbs
SRC = Path(__file__).resolve().parents[1] / "src" / "prmkit"


def _package(module: str) -> str | None:
    """`prmkit.label.recipe` -> "label"; `prmkit` -> "" (the root); anything else -> None."""
    parts = module.split(".")
    if parts[0] != "prmkit":
        return None
    return parts[1] if len(parts) > 1 else ""


def _imports(path: Path, root: Path) -> list[tuple[int, str]]:
    """(line, absolute module) of every prmkit import in `path` (relative imports resolved)."""
    rel = path.relative_to(root.parent).with_suffix("")
    here = list(rel.parts[:-1])  # the package that holds the module (for `__init__`, the package itself)
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = here[: len(here) - node.level + 1] if node.level else []
            module = ".".join([*base, node.module] if node.module else base)
            if module == "prmkit":  # `from prmkit import label` imports the package `label`
                found += [(node.lineno, f"prmkit.{a.name}") for a in node.names]
            else:
                found.append((node.lineno, module))
    return found


def layering_violations(root: Path) -> list[str]:
    """Every import in the package at `root` (a `prmkit` folder) that runs against the layering."""
    out = []
    for path in sorted(root.rglob("*.py")):
        own = path.relative_to(root).parts
        importer = own[0] if len(own) > 1 else ""
        if importer == "" and own[0] in ("__init__.py", "api.py", "__main__.py"):
            continue  # the root API (prmkit.api, re-exported by the package) and `python -m prmkit` import any layer
        level = LAYERS.get(importer)
        if level is None:
            out.append(f"{path.relative_to(root)}: package '{importer or own[0]}' has no layer in LAYERS")
            continue
        for line, module in _imports(path, root):
            target = _package(module)
            if target is None or target == importer or module == "prmkit.__version__":
                continue
            if target not in LAYERS:
                out.append(f"{path.relative_to(root)}:{line}: imports {module} (the root API or an unknown layer)")
            elif LAYERS[target] > level:
                out.append(f"{path.relative_to(root)}:{line}: {importer} (layer {level}) imports {module} "
                           f"({target}, layer {LAYERS[target]})")
    return out


def test_prmkit_imports_run_forwards_only():
    assert layering_violations(SRC) == []


@pytest.mark.parametrize(("source", "bad"), [
    ("from prmkit.train.config import TrainConfig\n", True),
    ("def f():\n    import prmkit.cli.main\n", True),
    ("from ..evaluate import bok\n", True),
    ("from prmkit import train\n", True),
    ("from prmkit.data.records import Pool\nfrom . import scorer\nfrom prmkit import __version__\n", False),
])
def test_the_check_catches_a_backward_import(tmp_path, source, bad):
    root = tmp_path / "prmkit"
    for pkg in ("data", "models", "label", "train", "evaluate", "cli"):
        (root / pkg).mkdir(parents=True)
        (root / pkg / "__init__.py").write_text("", encoding="utf-8")
    (root / "__init__.py").write_text("", encoding="utf-8")
    (root / "models" / "thing.py").write_text(source, encoding="utf-8")
    assert bool(layering_violations(root)) is bad
