"""The sampling settings declared once (`DecodingConfig`, a part `decoding` of `SamplerBackendConfig` <-
`SamplerConfig`, inherited by every verb that samples) and the configs of `prmkit generate` and `prmkit rollout`.
Defaults: MCNIG paper sec 3.1 and 4.2 (K = 8, T = 1.0, top-p 0.95, eight traces kept per problem)."""

from dataclasses import dataclass, field, replace

from prmkit.data.settings import (
    BATCH_SIZE,
    COUNT,
    LIMIT,
    MAX_NEW_TOKENS,
    NON_NEGATIVE,
    SAMPLES,
    SEED,
    TEMPERATURE,
    TOP_P,
    check_limits,
    part,
)
from prmkit.data.settings import field_help as _help
from prmkit.data.templates import check_template, prompt_template
from prmkit.generate.backends import Backend, BackendOptions, SamplingConfig, make_backend
from prmkit.generate.distributed import ScaleConfig
from prmkit.models.loading import DEFAULT_MODEL

__all__ = ["DecodingConfig", "GenerateConfig", "RolloutConfig", "SamplerBackendConfig", "SamplerConfig"]


@dataclass
class DecodingConfig:
    """How each sample is decoded: the settings of every sampler in prmkit (GRPO's policy included)."""

    temperature: float = field(default=1.0, metadata=_help("sampling temperature (MCNIG sec 4.2: 1.0; PUM: 0.7).",
                                                           range=TEMPERATURE))
    top_p: float = field(default=0.95, metadata=_help("nucleus sampling mass (MCNIG sec 4.2 and PUM: 0.95).",
                                                      range=TOP_P))
    max_new_tokens: int = field(default=512, metadata=_help("new tokens per sample at most.", range=MAX_NEW_TOKENS))
    seed: int = field(default=0, metadata=_help("base seed; the same seed gives the same samples on one backend.",
                                                range=SEED))
    chat: bool = field(default=True, metadata=_help("few-shot Q/A prompts in the model's chat template when it has "
                                                    "one (transformers, vllm); --no-chat sends raw text."))
    template: str | None = field(default=None, metadata=_help(
        "prompt template: a built-in name (generate_math_0shot: instruction and question only; generate_math_1shot) "
        "or a file; None: the domain's few-shot template. A warm start (prmkit sft --template) is sampled with its "
        "own."))

    def __post_init__(self) -> None:
        check_limits(self)
        prompt_template(self.template)  # an unknown name or a missing file is an error before any model loads


@dataclass
class SamplerBackendConfig:
    """K samples per prompt on a prmkit backend, each decoded as `decoding` says; the model is the subclass's."""

    decoding: DecodingConfig = part(DecodingConfig)
    k: int = field(default=8, metadata=_help("samples per prompt K (MCNIG sec 3.1; PUM: 8 per prefix).", range=SAMPLES))
    backend: str = field(default="transformers", metadata=_help("transformers | vllm | openai | ct2 "
                                                                "(generate.BACKENDS)."))
    batch_size: int = field(default=16, metadata=_help("sequences per generation batch (transformers).",
                                                       resume="may-change", range=BATCH_SIZE))
    base_url: str = field(default="http://127.0.0.1:8000", metadata=_help("OpenAI-compatible server (openai).",
                                                                          resume="may-change"))

    def __post_init__(self) -> None:
        check_limits(self)

    def sampling(self) -> SamplingConfig:
        d = self.decoding
        return SamplingConfig(n=self.k, temperature=d.temperature, top_p=d.top_p, max_new_tokens=d.max_new_tokens,
                              seed=d.seed, template=prompt_template(d.template))

    def backend_options(self) -> BackendOptions:
        return BackendOptions(batch_size=self.batch_size, base_url=self.base_url, chat=self.decoding.chat)


@dataclass
class SamplerConfig(SamplerBackendConfig):
    """How to sample: the backend, the model and the sampling settings."""

    model: str = field(default=DEFAULT_MODEL, metadata=_help("embedded name, local HF dir, or served model name."))
    dtype: str | None = field(default=None, metadata=_help("weights dtype (None: transformers float32 on a CPU, "
                                                           "bfloat16 on a GPU; the model's own for vllm).",
                                                           resume="may-change"))

    def backend_options(self) -> BackendOptions:
        return replace(super().backend_options(), dtype=self.dtype)

    def make_backend(self) -> Backend:
        """The backend, with its model loaded (a warm start only with the template it was trained on)."""
        check_template(self.model, self.decoding.template)  # a no-op unless the model is a warm start's directory
        return make_backend(self.backend, self.model, self.backend_options())


@dataclass
class GenerateConfig(SamplerConfig, ScaleConfig):
    """`prmkit generate`: K step-delimited CoTs per problem, validated, then filtered (MCNIG sec 3.1)."""

    data: str | None = field(default=None, metadata=_help("demo | humaneval | a GSM8K-style, Problem or Pool jsonl "
                                                          "file (required).", role="input"))
    domain: str | None = field(default=None, metadata=_help("math | python | sql | choice: override the problems' "
                                                            "domain (None: the data's own)."))
    limit: int | None = field(default=None, metadata=_help("use only the first N problems (None: all).", range=LIMIT))
    filter: bool = field(default=True, metadata=_help("apply the three filter stages of sec 3.1; --no-filter writes "
                                                      "every generated trace (e.g. for a test set)."))
    max_traces: int = field(default=8, metadata=_help("traces kept per problem by the filter (sec 3.1: eight).",
                                                      range=COUNT))
    output: str | None = field(default=None, metadata={"help": "filtered Pool jsonl", "required": True,
                                                       "role": "output"})
    raw: str | None = field(default=None, metadata=_help("all generated pools, resumable (default: OUTPUT with "
                                                         ".raw.jsonl)"))


@dataclass
class RolloutConfig(SamplerConfig, ScaleConfig):
    """`prmkit rollout`: K continuations after step prefixes of traces (Math-Shepherd, OmegaPRM, PUM prefix gain)."""

    input: str | None = field(default=None, metadata=_help("pools to roll out: prmkit Pool jsonl, GSM8K "
                                                           "candidates, or `demo` (required).", role="input"))
    limit: int | None = field(default=None, metadata=_help("use only the first N pools (None: all).", range=LIMIT))
    positions: list[int] = field(default_factory=list, metadata=_help(
        "prefix lengths n to roll out (0 = the no-prefix baseline, one per problem); empty: 0 and every proper "
        "prefix 1..N-1 of each trace (the full trace is finished already).", range=NON_NEGATIVE))
    output: str | None = field(default=None, metadata={"help": "Rollout jsonl, one line per prefix (append-only, "
                                                               "resumable)", "required": True, "role": "output"})
