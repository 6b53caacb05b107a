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
from prmkit.data.settings import known_fields

if TYPE_CHECKING:
    from prmkit.data.records import Pool, StepLabels

PathLike = str | os.PathLike[str]


def _verb(api_name: str, name: str) -> Callable[..., Any]:
    verb = VERBS[name]

    def call(*args: Any, config: PathLike | None = None, **settings: Any) -> Any:
        if len(args) > len(verb.args):
            raise TypeError(f"{api_name}() takes {len(verb.args)} positional argument(s) ({', '.join(verb.args)})")
        settings |= dict(zip(verb.args, args, strict=False))
        names = known_fields(config_classes(verb))
        passed = {k: settings.pop(k) for k in list(settings) if k not in names}
        return run_verb(name, settings, None if config is None else str(config), **passed)[0]

    call.__name__ = call.__qualname__ = api_name
    call.__doc__ = f"`prmkit {name}`: {verb.help}. Settings: the fields of {', '.join(verb.configs)}."
    call.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [*(inspect.Parameter(a, inspect.Parameter.POSITIONAL_OR_KEYWORD) for a in verb.args),
         inspect.Parameter("config", inspect.Parameter.KEYWORD_ONLY, default=None),
         inspect.Parameter("settings", inspect.Parameter.VAR_KEYWORD)])
    return call


_FUNCTIONS = {verb.api or name.replace("-", "_"): name for name, verb in VERBS.items()}  # api name -> verb
for _api_name, _name in _FUNCTIONS.items():
    globals()[_api_name] = _verb(_api_name, _name)


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


__all__ = sorted([*_FUNCTIONS, "bok_table", "read_pools", "to_dataset"])
