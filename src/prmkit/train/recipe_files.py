"""Named training recipes: `prmkit/recipes/<name>.yaml` (package data), each a `--config` file of `prmkit train`."""

from pathlib import Path

__all__ = ["RECIPES_DIR", "recipe_path"]

RECIPES_DIR = Path(__file__).resolve().parents[1] / "recipes"


def recipe_path(name: str) -> Path:
    """`prmkit/recipes/<name>.yaml`, or `name` when it is a file; a FileNotFoundError names the recipes there are."""
    if Path(name).is_file():
        return Path(name)
    path = RECIPES_DIR / f"{name}.yaml"
    if not path.is_file():
        known = sorted(p.stem for p in RECIPES_DIR.glob("*.yaml")) if RECIPES_DIR.is_dir() else []
        raise FileNotFoundError(f"no recipe {name!r} in {RECIPES_DIR} (recipes: {', '.join(known) or 'none'})")
    return path
