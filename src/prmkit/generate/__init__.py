"""Generation of step-delimited CoT pools (MCNIG paper, sec. 3.1 and 4.2): prompts, backends, filtering."""

from prmkit.generate.backends import (
    BACKENDS,
    Backend,
    BackendOptions,
    Completion,
    SamplingConfig,
    make_backend,
)
from prmkit.generate.extract import EXTRACTORS, extract_answer, parse_completion, split_steps
from prmkit.generate.filtering import FilterReport, filter_pools, subsample
from prmkit.generate.pipeline import GenerationStats, answer_sets, generate_pools, make_pool
from prmkit.generate.prompts import STEP, build_prompt
from prmkit.generate.run import reverify_file, run_generation, solve_rate
from prmkit.generate.sources import SOURCES, load_problems

__all__ = [
    "BACKENDS",
    "EXTRACTORS",
    "SOURCES",
    "STEP",
    "Backend",
    "BackendOptions",
    "Completion",
    "FilterReport",
    "GenerationStats",
    "SamplingConfig",
    "answer_sets",
    "build_prompt",
    "extract_answer",
    "filter_pools",
    "generate_pools",
    "load_problems",
    "make_backend",
    "make_pool",
    "parse_completion",
    "reverify_file",
    "run_generation",
    "solve_rate",
    "split_steps",
    "subsample",
]
