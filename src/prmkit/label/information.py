"""The information labeler: IG and MCNIG step scores (MCNIG paper sec 3.2) from one forward pass per problem; IG
reads y*, the first column of MCNIG's table."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence, Set
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from prmkit.data.answers import answer_sets
from prmkit.data.records import Pool, StepLabels, Trace
from prmkit.data.settings import COUNT, Range
from prmkit.data.templates import load_template
from prmkit.label.base import LabelCost, Labeled, LabelerBase, LabelerModelConfig
from prmkit.label.complexity import information_tokens
from prmkit.label.information_gain import information_gain
from prmkit.label.mcnig import ANSWER_SET_AGGREGATIONS, mcnig
from prmkit.models.loading import context_length, resolve_model
from prmkit.models.stepwise import encode_text

if TYPE_CHECKING:  # the scorer imports torch: only a labeler that runs loads it
    from prmkit.label.information_scorer import InformationScorer, Segments

__all__ = ["METHODS", "VARIANTS", "InformationConfig", "InformationLabeler", "make_scorer", "paper_tokens"]


@dataclass
class InformationConfig(LabelerModelConfig):
    """Settings of the IG / MCNIG labeler; defaults from the MCNIG paper (sec 3.2, appendix D: max, step 0)."""

    aggregation: str = field(default="max", metadata={"help": f"MCNIG: {' | '.join(ANSWER_SET_AGGREGATIONS)} "
                                                              "over each answer set"})
    reference: str = field(default="step0", metadata={"help": "MCNIG: step0 | previous (appendix D)"})
    prompt_template: str | None = field(default=None, metadata={"help": "file with {question}; default built in"})
    cue_template: str | None = field(default=None, metadata={"help": "file with {answer}; default built in"})
    sep: str = field(default="\n", metadata={"help": "text appended after every step (own tokens)"})
    max_step_tokens: int | None = field(default=None, metadata={"help": "a step longer than this (tokens) is "
                                                                        "too long; default: the model's context",
                                                                "range": COUNT})
    max_batch_tokens: int = field(default=16384, metadata={"help": "packed tokens of the problems gathered for "
                                                                    "one labeling window and per forward pass (bounds "
                                                                    "memory; one sequence at least)", "range": COUNT})
    forward_tokens: int = field(default=0, metadata={"help": "padded tokens per forward pass, at most "
                                                              "max_batch_tokens (0: 2048 on a CPU, where larger "
                                                              "batches spill its caches, max_batch_tokens on a GPU)",
                                                     "range": Range(0, note="0: the device's default")})


# settings that change no score: not stored in `params`, so a re-run may change them
_RUNTIME_KEYS = ("max_step_tokens", "max_batch_tokens", "forward_tokens")


def make_scorer(model: Any, tokenizer: Any, config: InformationConfig) -> InformationScorer:
    """The scorer of `config`'s templates and separator; `model` may be None until the first forward pass."""
    from prmkit.label.information_scorer import InformationScorer

    scorer = InformationScorer(model, tokenizer, load_template("label_prompt", config.prompt_template),
                               load_template("answer_cue", config.cue_template), config.sep)
    scorer.max_tokens, scorer.forward_tokens = config.max_batch_tokens, config.forward_tokens
    return scorer


def paper_tokens(scorer: InformationScorer, question: str, steps: list[str], answers: list[str]) -> int:
    """`information_tokens` (MCNIG appendix A) for one CoT, counted with `scorer`'s tokenizer and templates."""
    seg = scorer.segments(question, steps, [], with_step0=True)
    return information_tokens(seg.prefix_len, len(steps), [len(scorer.answer_ids(a)) for a in answers])


# A plan: the answers to score (y* first), the indices of C_q and of W_q among them.
Plan = tuple[list[str], list[int], list[int]]


def _plan_ig(pool: Pool) -> Plan | str:
    return ([answer], [0], []) if (answer := pool.problem.answer.strip()) else "no reference answer"


def _plan_mcnig(pool: Pool) -> Plan | str:
    answers, correct, incorrect = answer_sets(pool)
    return (answers, correct, incorrect) if incorrect else "no incorrect answer"


# MCNIG's appendix-D variants, named so that one forward pass labels them all: (aggregation, reference)
VARIANTS: dict[str, tuple[str, str]] = {"mcnig-mean": ("mean", "step0"), "mcnig-previous": ("max", "previous"),
                                        "mcnig-mean-previous": ("mean", "previous")}
# method -> (plan of a pool, formula: (information table rows i = 0..N, plan, the method's params) -> step scores)
METHODS: dict[str, tuple[Callable[[Pool], Plan | str], Callable[[list[list[float]], Plan, dict[str, Any]],
                                                                   list[float]]]] = {
    "ig": (_plan_ig, lambda info, plan, params: information_gain([row[0] for row in info])),
    **dict.fromkeys(("mcnig", *VARIANTS), (_plan_mcnig, lambda info, plan, params: mcnig(
        info, plan[1], plan[2], params["aggregation"], params["reference"]))),
}


class InformationLabeler(LabelerBase):
    """IG and/or MCNIG labels, one forward pass for all its methods. `scorer` replaces loading `config.model`;
    otherwise the weights load on the first `label` call."""

    # MCNIG >= IG (MCNIG table 8 / fig. 2); MCNIG's labels near the rollout labelers' (MCNIG table 1)
    claims: ClassVar[dict[str, tuple[str, ...]]] = {"mcnig": ("ig", "math-shepherd", "omegaprm")}
    cost_reference: ClassVar[str] = "mcnig"  # O(N) tokens per CoT of N steps (MCNIG appendix A)

    config_class: ClassVar[type] = InformationConfig

    def __init__(self, config: InformationConfig, methods: Sequence[str], scorer: InformationScorer | None = None):
        if unknown := [m for m in methods if m not in METHODS]:
            raise ValueError(f"the information labeler has no method {unknown}; it has {sorted(METHODS)}")
        self.config, self.methods = config, tuple(methods)
        if scorer is None:  # the tokenizer and the context length, without the weights
            from transformers import AutoTokenizer

            scorer = make_scorer(None, AutoTokenizer.from_pretrained(resolve_model(config.model)), config)
            self.context = context_length(config.model) or 2048
        else:
            self.context = int(getattr(scorer.model.config, "max_position_embeddings", None) or 2048)
        self.scorer = scorer

    def params(self, method: str) -> dict[str, Any]:
        own = dict(zip(("aggregation", "reference"), VARIANTS[method], strict=True)) if method in VARIANTS else {}
        return {"method": method} | {k: v for k, v in asdict(self.config).items() if k not in _RUNTIME_KEYS} | own

    def unreadable(self, pool: Pool, ids: Set[str]) -> dict[str, str]:
        answers = max((plan[0] for m in self.methods if not isinstance(plan := METHODS[m][0](pool), str)),
                      key=len, default=[])
        limit = self.config.max_step_tokens or self.context
        out = {}
        for t in (t for t in pool.traces if t.id in ids):
            lengths = [len(encode_text(self.scorer.tokenizer, s)) for s in t.steps]
            worst = max(range(len(lengths)), key=lengths.__getitem__, default=None)
            if worst is not None and lengths[worst] > limit:
                out[t.id] = f"step {worst + 1} has {lengths[worst]} tokens, more than the limit of {limit}"
                continue
            packed = len(self.scorer.segments(pool.problem.question, t.steps, answers, with_step0=False).ids)
            if packed > self.context:
                out[t.id] = (f"its packed sequence (prompt, steps, answers) has {packed} tokens, more than the "
                             f"model's context of {self.context}")
        return out

    def skip_reason(self, pool: Pool, method: str) -> str | None:
        plan = METHODS[method][0](pool)
        return plan if isinstance(plan, str) else None

    def _ledger(self, pool: Pool, steps: list[str], answers: list[str], paper: int) -> dict[str, Any]:
        """A record's cost: its own packed sequence's tokens (the shared I_0 pass only in the call's total)."""
        own = len(self.scorer.segments(pool.problem.question, steps, answers, with_step0=False).ids) if steps else 0
        return {"tokens_read": own, "tokens_generated": 0, "paper_tokens": paper, "steps": len(steps)}

    def label_stream(self, items: Iterable[tuple[Pool, Mapping[str, Set[str]]]]) -> Iterator[Labeled]:
        """Problems gathered into forward passes of at most `max_batch_tokens` packed tokens (one at least)."""
        window: list[_Job] = []
        for pool, todo in items:
            try:
                job = self._prepare(pool, todo)
            except ValueError:
                yield from self._run(window)
                raise
            if window and sum(j.tokens for j in window) + job.tokens > self.config.max_batch_tokens:
                yield from self._run(window)
                window = []
            window.append(job)
        yield from self._run(window)

    def _prepare(self, pool: Pool, todo: Mapping[str, Set[str]]) -> _Job:
        plans: dict[str, Plan] = {}
        for m in todo:
            plan = METHODS[m][0](pool)
            if isinstance(plan, str):
                raise ValueError(f"{m} cannot label problem {pool.problem.id}: {plan}")
            plans[m] = plan
        answers = max((plan[0] for plan in plans.values()), key=len)
        if any(plan[0] != answers[: len(plan[0])] for plan in plans.values()):
            raise AssertionError("method plans must share their answer order")
        traces = [t for t in pool.traces if any(t.id in ids for ids in todo.values())]
        segs = self.scorer.pool_segments(pool.problem.question, [t.steps for t in traces], answers)
        return _Job(pool, todo, plans, answers, traces, segs)

    def _run(self, jobs: list[_Job]) -> Iterator[Labeled]:
        if not jobs:
            return
        if self.scorer.model is None:
            from prmkit.models.loading import load_model

            self.scorer.model = load_model(self.config.model)[0]
        results = iter(self.scorer.run_batched([s for job in jobs for s in job.segs]))
        for job in jobs:
            mine = [next(results) for _ in job.segs]
            yield self._records(job, self.scorer.tables([t.steps for t in job.traces], mine))

    def _records(self, job: _Job, infos: list[list[list[float]]]) -> Labeled:
        pool, cost = job.pool, LabelCost(tokens_read=job.tokens)
        records: dict[str, list[StepLabels]] = {}
        for m, plan in job.plans.items():
            params, records[m], cost.paper_tokens[m] = self.params(m), [], 0
            for trace, info in zip(job.traces, infos, strict=True):
                if trace.id not in job.todo[m]:
                    continue
                scores = METHODS[m][1]([row[: len(plan[0])] for row in info], plan, params)
                paper = paper_tokens(self.scorer, pool.problem.question, trace.steps, plan[0])
                records[m].append(StepLabels(trace.id, m, scores, [], None, params, trace.correct, pool.problem.id,
                                             self._ledger(pool, trace.steps, job.answers, paper)))
                cost.paper_tokens[m] += paper
        return Labeled(records, cost)


@dataclass
class _Job:
    """One labeling call before its forward pass."""

    pool: Pool
    todo: Mapping[str, Set[str]]
    plans: dict[str, Plan]
    answers: list[str]
    traces: list[Trace]
    segs: list[Segments]

    @property
    def tokens(self) -> int:  # the tokens fed to the model (padding excluded), as the scorer counts them
        return sum(len(s.ids) for s in self.segs)
