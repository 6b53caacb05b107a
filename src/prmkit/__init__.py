"""prmkit: process supervision for LLM reasoning.

Pipeline: problems + validator -> step-delimited CoTs -> verified answers -> step labels (IG, MCNIG, ...)
-> reward models -> best-of-K, search, ProcessBench-style evaluation, RL rewards.

The functions of `prmkit.api` mirror the CLI verbs (`prmkit label` = `api.label(...)`, ...) and take the same
settings as keyword arguments (every field of the verb's config dataclasses; an unknown name is an error):

    from prmkit import api
    api.label("demo", "runs/mcnig.jsonl", method="mcnig")
    api.train("prm", "runs/prm", pools="demo", labels="runs/mcnig.jsonl")
    api.score("runs/prm", "demo", "runs/scores.jsonl")
    print(api.bok_table(api.best_of_k({"PRM": "runs/scores.jsonl"})))
    api.rl("grpo", "runs/rl", reward="outcome+pspo_wrs:runs/prm", steps=30)

The verbs whose names are not those of a subpackage are re-exported here too (`prmkit.score`, `prmkit.bench`, ...);
`generate`, `label`, `train`, `rl`, `search` and `verify` are the pipeline's subpackages, so their verbs are
`prmkit.api`'s only.
"""

from __future__ import annotations

from prmkit import api
from prmkit.api import *  # noqa: F403 (the verbs, listed once: prmkit.api.__all__)

__version__ = "0.1.0"

# subpackages of the same names: their verbs are `prmkit.api`'s only (an import of the subpackage would rebind them)
_SUBPACKAGES = ("generate", "label", "rl", "search", "train", "verify")
for _name in _SUBPACKAGES:
    del globals()[_name]
__all__ = ["__version__", "api", *(n for n in api.__all__ if n not in _SUBPACKAGES)]
