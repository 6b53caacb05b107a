"""Generation of step-delimited CoT pools (MCNIG paper sec 3.1, 4.2) and rollouts after step prefixes; executors
that run the work here or on Ray."""

from prmkit.generate.backends import (
    BACKENDS,
    Backend,
    BackendOptions,
    Completion,
    PromptBackend,
    SamplingConfig,
    make_backend,
    row_seed,
)
from prmkit.generate.config import DecodingConfig, GenerateConfig, RolloutConfig, SamplerBackendConfig, SamplerConfig
from prmkit.generate.distributed import (
    Executor,
    LocalExecutor,
    RayExecutor,
    Resident,
    ScaleConfig,
    make_executor,
    ray_init,
)
from prmkit.generate.filtering import FilterReport, filter_pools, subsample
from prmkit.generate.generation_recipe import GenerationReport, raw_path, run_generation, solve_rate
from prmkit.generate.prompts import build_prompt
from prmkit.generate.reverify import VerifyConfig, reverify_file
from prmkit.generate.rollout import (
    PrefixRequest,
    RolloutStats,
    partial_answer,
    prefix_requests,
    prefix_seed,
    rollout_prefixes,
)
from prmkit.generate.rollout_recipe import RolloutReport, run_rollout
from prmkit.generate.rollout_records import Continuation, Rollout
from prmkit.generate.sample_pools import GenerationStats, generate_pools, make_pool
from prmkit.generate.sources import SOURCES, load_problems

__all__ = ["BACKENDS", "SOURCES", "Backend", "BackendOptions", "Completion", "Continuation", "DecodingConfig",
           "Executor", "FilterReport", "GenerateConfig", "GenerationReport", "GenerationStats", "LocalExecutor",
           "PrefixRequest", "PromptBackend", "RayExecutor", "Resident", "Rollout", "RolloutConfig", "RolloutReport",
           "RolloutStats", "SamplerBackendConfig", "SamplerConfig", "SamplingConfig", "ScaleConfig", "VerifyConfig",
           "build_prompt", "filter_pools", "generate_pools", "load_problems", "make_backend", "make_executor",
           "make_pool", "partial_answer", "prefix_requests", "prefix_seed", "raw_path", "ray_init", "reverify_file",
           "rollout_prefixes", "row_seed", "run_generation", "run_rollout", "solve_rate", "subsample"]
