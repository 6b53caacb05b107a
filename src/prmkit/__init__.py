"""prmkit: process supervision for LLM reasoning.

Pipeline: problems + validator -> step-delimited CoTs -> verified answers -> step labels (IG, MCNIG, ...)
-> reward models -> best-of-K, search, ProcessBench-style evaluation, RL rewards.
"""

__version__ = "0.1.0"
