"""prmkit: process supervision for LLM reasoning. Every CLI verb is a function of `prmkit.api` (`prmkit label` =
`api.label(...)`); `prmkit.label`, `prmkit.train`, ... are the pipeline's subpackages (docs/architecture.md)."""

from prmkit import api

__version__ = "0.1.0"
__all__ = ["__version__", "api"]
