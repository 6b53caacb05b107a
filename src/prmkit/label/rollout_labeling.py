"""What the rollout labelers (Math-Shepherd, OmegaPRM, PUM) share: settings, skips, and the base class whose
subclasses write one pool's labeling as a plan of rounds of step prefixes."""

from collections.abc import Iterable, Iterator, Mapping, Sequence, Set
from dataclasses import dataclass, field
from typing import Any, ClassVar

from prmkit.data.records import Pool, StepLabels, Trace
from prmkit.data.settings import config_values, field_help, field_range
from prmkit.data.templates import check_template
from prmkit.generate.backends import PromptBackend
from prmkit.generate.config import SamplerConfig
from prmkit.label.base import LabelCost, Labeled, LabelerBase, LabelerModelConfig
from prmkit.label.rollout_batches import Plan, PoolRollouts, PrefixRoller, label_stream
from prmkit.models.loading import resolve_model

__all__ = ["PoolRollouts", "PrefixRoller", "RolloutLabelConfig", "RolloutMethods", "rollout_params",
           "rollout_skip_reason"]

# settings that change no score (kept out of the records' params, so a re-run may change them)
_NOT_PARAMS = ("batch_size", "base_url")
_SCOPE = "Math-Shepherd/OmegaPRM: "  # `prmkit label` has the flags of every labeler: these name the ones they set


def _sampler_field(name: str, text: str, **metadata: Any) -> Any:
    base = SamplerConfig.__dataclass_fields__[name]
    return field(default=base.default, metadata=field_help(_SCOPE + text, range=field_range(base)) | metadata)


@dataclass
class RolloutLabelConfig(LabelerModelConfig, SamplerConfig):
    """Settings of the rollout labelers: `SamplerConfig`'s, K = M rollouts per prefix, 8 as in the MCNIG paper's
    comparison (appendix A) and Math-Shepherd (Wang et al. 2024)."""

    k: int = _sampler_field("k", "completions M per prefix")
    dtype: str | None = _sampler_field("dtype", "weights dtype of the rollout model (transformers: float32 on a "
                                                "CPU, bfloat16 on a GPU when unset; on a CPU bfloat16 samples ~1.7x "
                                                "faster with bf16 matrix units, other samples)")

    def params(self, method: str) -> dict[str, Any]:
        return rollout_params(self, method)


def rollout_params(config: Any, method: str) -> dict[str, Any]:
    """The records' params of a rollout labeler (Math-Shepherd, OmegaPRM, PUM): its config's settings but those
    that change no score."""
    names = {"k": "rollouts"}  # K's key in the records' params: every label file, old and new, resumes on it
    return {"method": method} | {names.get(k, k): v for k, v in config_values(config).items() if k not in _NOT_PARAMS}


def rollout_skip_reason(pool: Pool) -> str | None:
    """Why a pool cannot be rolled out (no reference answer, a trace without a verdict), or None."""
    if not pool.problem.answer.strip():
        return "no reference answer"
    if any(t.correct is None for t in pool.traces):
        return "a trace without a verdict"
    return None


class RolloutMethods(LabelerBase):
    """Methods, params, skips and pending traces, alike for every rollout labeler."""

    config_class: ClassVar[type] = RolloutLabelConfig
    NAME: ClassVar[str] = ""
    METHODS: ClassVar[tuple[str, ...]] = ()

    def __init__(self, config: RolloutLabelConfig, methods: Sequence[str]):
        if unknown := [m for m in methods if m not in self.METHODS]:
            raise ValueError(f"the {self.NAME} labeler has no method {unknown}; it has {sorted(self.METHODS)}")
        self.config, self.methods = config, tuple(methods)

    def params(self, method: str) -> dict[str, Any]:
        return self.config.params(method)

    def skip_reason(self, pool: Pool, method: str) -> str | None:
        return rollout_skip_reason(pool)

    def pending(self, pool: Pool, todo: Mapping[str, Set[str]]) -> list[Trace]:
        """The traces some method still owes; a pool the labeler cannot label is an error naming it."""
        if reason := rollout_skip_reason(pool):
            raise ValueError(f"{self.NAME} cannot label problem {pool.problem.id}: {reason}")
        return [t for t in pool.traces if any(t.id in ids for ids in todo.values())]

    def labeled(self, pool: Pool, todo: Mapping[str, Set[str]],
                rows: Iterable[tuple[Trace, Mapping[str, list[float]], dict[str, Any]]]) -> Labeled:
        """The records of the traces `todo` asks for, from (trace, scores by method, ledger), and the call's cost."""
        cost, records = LabelCost(), {m: [] for m in todo}
        for t, scores, ledger in rows:
            cost.tokens_read += ledger["tokens_read"]
            cost.tokens_generated += ledger["tokens_generated"]
            for m in todo:
                if t.id in todo[m]:
                    records[m].append(StepLabels(t.id, m, scores[m], [], None, self.params(m), t.correct,
                                                 pool.problem.id, ledger))
                    cost.paper_tokens[m] = cost.paper_tokens.get(m, 0) + round(ledger["paper_tokens"])
        return Labeled(records, cost)


class RolloutLabeler(RolloutMethods):
    """A rollout labeler of one model: a subclass sets `NAME` and `METHODS` and writes `plan`, one pool's labeling
    as rounds of prefixes."""

    @classmethod
    def check(cls, config: RolloutLabelConfig) -> None:
        """The rollouts sample `config.model`: it exists, and a warm start is given the template it learnt."""
        check_template(resolve_model(config.model), config.decoding.template)

    def __init__(self, config: RolloutLabelConfig, methods: Sequence[str], backend: PromptBackend | None = None):
        super().__init__(config, methods)
        self.roller = PrefixRoller(config, backend)

    def unreadable(self, pool: Pool, ids: Set[str]) -> dict[str, str]:
        return self.roller.unreadable(pool, ids)

    def plan(self, pool: Pool, todo: Mapping[str, Set[str]], rolls: PoolRollouts) -> Plan:
        raise NotImplementedError

    def label_stream(self, items: Iterable[tuple[Pool, Mapping[str, Set[str]]]]) -> Iterator[Labeled]:
        return label_stream(self.roller, self.plan, items)
