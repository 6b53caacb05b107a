"""prmkit: process supervision for LLM reasoning.

Pipeline: problems + validator -> step-delimited CoTs -> verified answers -> step labels (IG, MCNIG, ...)
-> reward models -> best-of-K, search, ProcessBench-style evaluation, RL rewards.

Every CLI verb is one function of `prmkit.api`, the one way in from Python (`prmkit label` = `api.label(...)`, ...),
taking the same settings as keyword arguments (every field of the verb's config dataclasses; an unknown name is an
error). No verb is re-exported at the top: `prmkit.label`, `prmkit.train`, ... are the pipeline's subpackages.

    from prmkit import api
    api.label("demo", "runs/mcnig.jsonl", method="mcnig")
    api.train("prm", "runs/prm", pools="demo", labels="runs/mcnig.jsonl")
    api.score("runs/prm", "demo", "runs/scores.jsonl")
    print(api.bok_table(api.best_of_k({"PRM": "runs/scores.jsonl"})))
    api.rl("grpo", "runs/rl", reward="outcome+pspo_wrs:runs/prm", steps=30)
"""

from __future__ import annotations

from prmkit import api

__version__ = "0.1.0"
__all__ = ["__version__", "api"]
