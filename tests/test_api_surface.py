"""One way in from Python: every CLI verb is a function of `prmkit.api`, and no verb is at the top (`prmkit.score`
was a function while `prmkit.label` is a package)."""

from __future__ import annotations

import argparse
import types

import prmkit
from prmkit.cli.main import build_parser

GROUPS = {"data": ("bench_set", "corrupt", "synth"), "evaluate": ("best_of_k", "processbench")}  # verb groups


def test_every_verb_is_a_function_of_prmkit_api_and_none_is_at_the_top():
    (sub,) = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    for verb in sub.choices:
        for name in GROUPS.get(verb, (verb.replace("-", "_"),)):
            assert callable(getattr(prmkit.api, name)), verb
    assert prmkit.__all__ == ["__version__", "api"]
    top = {n: getattr(prmkit, n, types.ModuleType(n)) for n in prmkit.api.__all__}
    assert [n for n, obj in top.items() if not isinstance(obj, types.ModuleType)] == []
