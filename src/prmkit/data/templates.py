"""The one template loader: prompt and cue templates are files, in `prmkit/templates/` or given by the user.

    >>> "{question}" in load_template("label_prompt")
    True
"""

from __future__ import annotations

import os
from functools import cache
from importlib import resources
from pathlib import Path

__all__ = ["load_template", "prompt_template"]


@cache
def _packaged(name: str) -> str:
    filename = name if Path(name).suffix else f"{name}.txt"
    resource = resources.files("prmkit.templates").joinpath(filename)
    if not resource.is_file():
        known = sorted(p.name for p in resources.files("prmkit.templates").iterdir() if p.name.endswith(".txt"))
        raise ValueError(f"no built-in template {name!r}; known: {', '.join(known)}")
    return resource.read_text(encoding="utf-8")


def load_template(name: str, path: str | os.PathLike[str] | None = None) -> str:
    """The text of the user's template file `path` when given, else of the built-in template `name`
    (`label_prompt`, `answer_cue`, `prm_prefix`, `generate_math`, ...; `.txt` may be left out)."""
    if path:
        if not Path(path).is_file():
            raise FileNotFoundError(f"template file not found: {path}")
        return Path(path).read_text(encoding="utf-8")
    return _packaged(name)


def prompt_template(name: str | None) -> str | None:
    """The text of a prompt template given by built-in name (`generate_math_1shot`, `generate_math_0shot`) or file
    path; None keeps each domain's own few-shot template."""
    if name is None:
        return None
    return load_template(name, name if Path(name).is_file() else None)
