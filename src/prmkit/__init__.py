"""prmkit: process supervision for LLM reasoning.

Pipeline: problems + validator -> step-delimited CoTs -> verified answers -> step labels (IG, MCNIG, ...)
-> reward models -> best-of-K, search, ProcessBench-style evaluation, RL rewards.

The functions of `prmkit.api`, re-exported here, mirror the CLI verbs (`prmkit label` = `prmkit.label(...)`, ...)
and take the same settings as keyword arguments (every field of the verb's config dataclasses; an unknown name is
an error):

    import prmkit
    prmkit.label("demo", "runs/mcnig.jsonl", method="mcnig")
    prmkit.train("prm", "runs/prm", pools="demo", labels="runs/mcnig.jsonl")
    prmkit.score("runs/prm", "demo", "runs/scores.jsonl")
    print(prmkit.bok_table(prmkit.best_of_k({"PRM": "runs/scores.jsonl"})))
    prmkit.rl("grpo", "runs/rl", reward="outcome+pspo_wrs:runs/prm", steps=30)

`prmkit.label`, `prmkit.train`, `prmkit.generate`, `prmkit.rl`, `prmkit.search` and `prmkit.verify` are also
subpackages (the pipeline's layers). Python's import system binds a subpackage to its parent's attribute of the
same name when it is first imported, which would replace the verb; so those six names are callable verbs that read
the subpackage's names through them (`prmkit.label.LabelConfig`, `prmkit.train.config`), and this module's class
keeps them when the subpackage is imported. Plain functions without that: `from prmkit.api import label`.
"""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Callable
from typing import Any

from prmkit import api as _api
from prmkit.api import *  # noqa: F403 (the verbs, listed once: prmkit.api.__all__)

__version__ = "0.1.0"

__all__ = ["__version__", *_api.__all__]


class _Verb:
    """An API function that shares its name with a subpackage: calling it runs the verb, any attribute is the
    subpackage's (imported on first use)."""

    def __init__(self, fn: Callable[..., Any], package: str) -> None:
        self.__wrapped__, self._package = fn, package
        self.__doc__, self.__name__, self.__qualname__ = fn.__doc__, fn.__name__, fn.__qualname__

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.__wrapped__(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(importlib.import_module(self._package), name)

    _OWN = frozenset({"__wrapped__", "_package", "__doc__", "__name__", "__qualname__"})

    def __setattr__(self, name: str, value: Any) -> None:
        """Set on the subpackage (`monkeypatch.setattr("prmkit.search.X", ...)` patches the module)."""
        if name in self._OWN:
            object.__setattr__(self, name, value)
        else:
            setattr(importlib.import_module(self._package), name, value)

    def __delattr__(self, name: str) -> None:
        delattr(importlib.import_module(self._package), name)

    def __dir__(self) -> list[str]:
        return sorted(set(dir(importlib.import_module(self._package))) | {"__call__", "__doc__"})

    def __repr__(self) -> str:
        return f"<prmkit verb {self.__name__} (and package {self._package})>"


class _Package(types.ModuleType):
    """The `prmkit` module: the import system's `setattr(prmkit, "label", <module>)` keeps the verb."""

    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(self.__dict__.get(name), _Verb) and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


for _name in ("generate", "label", "train", "rl", "search", "verify"):
    globals()[_name] = _Verb(globals()[_name], f"{__name__}.{_name}")
sys.modules[__name__].__class__ = _Package
