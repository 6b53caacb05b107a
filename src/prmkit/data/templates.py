"""The one template loader (built-in `prmkit/templates/` or a user's file), and the check that a warm start is
sampled with the prompt template its manifest records."""

import os
from functools import cache
from importlib import resources
from pathlib import Path

from prmkit.data.manifest import Manifest, read_manifest

__all__ = ["check_template", "load_template", "prompt_template", "trained_template"]


@cache
def _packaged(name: str) -> str:
    filename = name if Path(name).suffix else f"{name}.txt"
    resource = resources.files("prmkit.templates").joinpath(filename)
    if not resource.is_file():
        known = sorted(p.name for p in resources.files("prmkit.templates").iterdir() if p.name.endswith(".txt"))
        raise ValueError(f"no built-in template {name!r}; known: {', '.join(known)}")
    return resource.read_text(encoding="utf-8")


def load_template(name: str, path: str | os.PathLike[str] | None = None) -> str:
    """The text of the user's template file `path` when given (an empty one is a ValueError), else of the built-in
    template `name` (`label_prompt`, `answer_cue`, `prm_prefix`, `generate_math`, ...; `.txt` may be left out)."""
    if path:
        if not Path(path).is_file():
            raise FileNotFoundError(f"template file not found: {path}")
        if not (text := Path(path).read_text(encoding="utf-8")).strip():
            raise ValueError(f"template file {path} is empty: every prompt would be empty; write the template "
                             "into it (see prmkit/templates/ for the built-in ones)")
        return text
    return _packaged(name)


def prompt_template(name: str | None) -> str | None:
    """The text of a prompt template given by built-in name (`generate_math_1shot`, `generate_math_0shot`) or file
    path; None keeps each domain's own few-shot template."""
    return None if name is None else load_template(name, name if Path(name).is_file() else None)


def _warm_start(model: str | os.PathLike[str]) -> Manifest | None:
    """The manifest of `model` when it is a warm start (a `prmkit sft` output), else None."""
    made = read_manifest(model)
    return made if made is not None and made.kind == "sft" else None


def trained_template(model: str | os.PathLike[str]) -> str | None:
    """The prompt template a warm-started policy (a `prmkit sft` output) was trained with (`--template`); None for
    the domain's few-shot template and for any other model."""
    made = _warm_start(model)
    return made.settings.get("template") if made else None


def check_template(model: str | os.PathLike[str], template: str | None) -> None:
    """Raise when `model` is a warm start (a `prmkit sft` output) trained on another prompt template than
    `template` (None: the domain's few-shot one); any other model may be sampled with any template."""
    if (made := _warm_start(model)) is None:
        return
    trained = made.settings.get("template")
    if prompt_template(trained) != prompt_template(template):
        def name(t: str | None) -> str:
            return f"template '{t}'" if t else "the domain's few-shot prompt"

        fix = f"--template {trained}" if trained else "no --template"
        raise ValueError(f"the policy {model} was warm-started on {name(trained)} but would be sampled with "
                         f"{name(template)}: give {fix}")
