"""prmkit's Python API: `prmkit.api.<verb>(...)` runs what `prmkit <verb>` runs, by the same call
(`prmkit.cli.verbs.run_verb`): keyword arguments are the verb's config fields (its positional CLI arguments may come
first), `config=` a YAML file as `--config`; `progress`, `log` and a verb's other run arguments pass through.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from prmkit.cli.verbs import VERBS, config_classes, run_verb
from prmkit.data.settings import config_fields

if TYPE_CHECKING:
    from prmkit.data.records import Pool, StepLabels

PathLike = str | os.PathLike[str]


def _verb(name: str) -> Callable[..., Any]:
    verb = VERBS[name]
    api_name = verb.api or name.replace("-", "_")

    def call(*args: Any, config: PathLike | None = None, **settings: Any) -> Any:
        if len(args) > len(verb.args):
            raise TypeError(f"{api_name}() takes {len(verb.args)} positional argument(s) ({', '.join(verb.args)})")
        settings |= dict(zip(verb.args, args, strict=False))
        names = {s.name for cls in config_classes(verb) for s in config_fields(cls)}
        passed = {k: settings.pop(k) for k in list(settings) if k not in names}
        return run_verb(name, settings, None if config is None else str(config), **passed)[0]

    call.__name__ = call.__qualname__ = api_name
    call.__doc__ = f"`prmkit {name}`: {verb.help}. Settings: the fields of {', '.join(verb.configs)}."
    call.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [*(inspect.Parameter(a, inspect.Parameter.POSITIONAL_OR_KEYWORD) for a in verb.args),
         inspect.Parameter("config", inspect.Parameter.KEYWORD_ONLY, default=None),
         inspect.Parameter("settings", inspect.Parameter.VAR_KEYWORD)])
    return call


for _name in VERBS:
    globals()[VERBS[_name].api or _name.replace("-", "_")] = _verb(_name)


def read_pools(source: PathLike, format: str = "auto") -> list[Pool]:
    """The pools of a file (Pool JSONL, GSM8K, TRL, Math-Shepherd, PRM800K, OmegaPRM; detected) or of `"demo"`."""
    from prmkit.data.formats import read_pools as read

    return list(read(source, format))


def to_dataset(pools: PathLike | Iterable[Pool], labels: PathLike | Iterable[StepLabels], soft: bool = False):
    """A `datasets.Dataset` in TRL's stepwise format (`prompt, completions, labels`; `soft`: sigmoid(score - tau))."""
    from prmkit.label.export import to_dataset as build

    return build(pools, labels, soft)


def bok_table(report: Mapping[str, Any]) -> str:
    """The markdown table `prmkit evaluate bok` prints for a `best_of_k` report."""
    from prmkit.evaluate.report import format_table

    return format_table(dict(report))


__all__ = sorted([*(v.api or n.replace("-", "_") for n, v in VERBS.items()), "bok_table", "read_pools",
                  "to_dataset"])
