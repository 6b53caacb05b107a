"""`BeamConfig`: the settings of `prmkit search`. Defaults follow PUM appendix D.3 (N = 8, b = 2, min) but for a
shorter step budget and fewer stages (48 tokens and 6 stages, not 256 and 24), so that CPU runs stay short."""

from dataclasses import dataclass, field, replace

from prmkit.data.settings import COUNT, LIMIT, SAMPLES, check_limits, part
from prmkit.data.settings import field_help as _help
from prmkit.generate.backends import BackendOptions
from prmkit.generate.config import DecodingConfig, SamplerConfig
from prmkit.models.aggregate import AGGREGATIONS
from prmkit.models.scorer import SCORERS, StepScorer, check_scorer_kind
from prmkit.models.scorer_spec import load_scorer_spec

__all__ = ["SCORERS", "BeamConfig"]  # SCORERS: `prmkit.models.scorer.SCORERS`, the one registry of scorer kinds


@dataclass
class BeamConfig(SamplerConfig):
    """`prmkit search`: beam search guided by a step scorer, and best-of-N at about the same token budget."""

    k: int = field(default=8, metadata=_help("N: first-step samples per problem; every later stage also expands "
                                             "N in all (N/b per kept beam); best-of-N samples N traces (PUM D.3).",
                                             range=SAMPLES))
    decoding: DecodingConfig = part(DecodingConfig, max_new_tokens=48, helps={
        "max_new_tokens": "new tokens per expansion step (PUM D.3: 256); a best-of-N trace gets max_steps x this."})
    input: str | None = field(default=None, metadata=_help("problems: demo, a GSM8K-style, Problem, Pool or GSM8K "
                                                           "candidates jsonl (required).", resume="may-change"))
    limit: int | None = field(default=None, metadata=_help("search only the first N problems (None: all).",
                                                           resume="may-change", range=LIMIT))
    width: int = field(default=2, metadata=_help("b: unfinished prefixes kept per problem at each stage "
                                                 "(PUM D.3: N=8 -> b in {8, 4, 2}); N must be divisible by b.",
                                                 range=COUNT))
    max_steps: int = field(default=6, metadata=_help("expansion stages at most (PUM D.3: 24); a beam still "
                                                     "unfinished after them ends there.", range=COUNT))
    scorer: str = field(default="reward-model", metadata=_help(f"kind of step scorer: {' | '.join(SCORERS)} "
                                                               "(models.SCORERS; reward-model: a PRM, ORM or PUM "
                                                               "value model).", resume="scorer"))
    scorer_options: str | None = field(default=None, metadata=_help("the scorer's options: a JSON object or a .json "
                                                                    "file (the spec's own win)."))
    prm: str | None = field(default=None, metadata=_help("the scorer's checkpoint (`prmkit train` directory, or a "
                                                         "spec KIND:PATH,KEY=VALUE: models.scorer_spec; "
                                                         "required).", resume="scorer"))
    aggregation: str = field(default="min", metadata=_help("step scores -> prefix/trace score: "
                                                           f"{' | '.join(AGGREGATIONS)} (PUM D.3 ranks PRM "
                                                           "prefixes by min)."))
    prefix_cache: bool = field(default=True, metadata=_help("transformers backend: keep each stage's KV cache and "
                                                            "run only the new tokens of the next stage's prefixes "
                                                            "(--no-prefix-cache: run every prefix again).",
                                                            resume="may-change"))
    problems_per_batch: int = field(default=32, metadata=_help("problems searched together: all their live beams "
                                                               "share one generation call per stage; results are "
                                                               "written as each problem ends.", resume="may-change",
                                                               range=COUNT))
    methods: str = field(default="", metadata=_help("search method(s), comma-separated: beam, bon (bon = best-of-N)",
                                                    resume="may-change") | {"positional": True})
    output: str = field(default="", metadata=_help("search records jsonl, one line per problem (append-only, "
                                                   "resumable); with several methods it must contain {method}",
                                                   resume="may-change") | {"required": True})

    def __post_init__(self) -> None:
        check_limits(self)
        if self.k % self.width:
            raise ValueError(f"N = {self.k} must be a positive multiple of the beam width b = {self.width}")

    def backend_options(self) -> BackendOptions:
        return replace(super().backend_options(), prefix_cache=self.prefix_cache)

    def make_scorer(self) -> StepScorer:
        """The step scorer, loaded (`models.load_scorer`)."""
        check_scorer_kind(self.scorer)
        if not self.prm:
            raise ValueError("no scorer checkpoint: set --prm")
        return load_scorer_spec(self.prm, self.scorer, self.scorer_options)
