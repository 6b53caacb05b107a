"""What the rollout labelers (Math-Shepherd, OmegaPRM, PUM) share: their settings, the sampling of M continuations
after step prefixes (the rollout primitive, `prmkit.generate.rollout`) and the per-trace cost ledger.

A prefix of n steps is the rollout request `<t>@<n>`, t the pool's first trace whose first n steps it is (n < N),
`<problem_id>@0` the empty prefix; its M continuations are validated against the problem's answer. Traces of one
pool that start alike (a right trace and its copy slipped at step k share their first k - 1 steps) ask for the same
prefix: it is rolled out once per pool and shared (`PoolRollouts`), and its id, and so its seed, depend only on the
pool's traces, never on which of them a call labels. The ledger of a trace counts, measured: `tokens_read` (prompt
+ prefix tokens, once per queried prefix, as the backend prefills them for its M continuations), `tokens_generated`
(all continuation tokens), both with a shared prefix's tokens divided among the traces of the call that asked for
it (so the ledgers sum to what was spent); `prefixes`, `prefixes_shared` (of those, how many another trace also
asked for) and `rollouts`; and `tokens_read_cached`: the prompt and the longest queried prefix once, what an engine
with a prefix cache reads (the paper's KV-caching assumption, appendix A). `step_tokens` is the trace's mean tokens
per step, the s of the paper's formulas.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence, Set
from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar

from prmkit.data.records import Pool, Trace
from prmkit.data.templates import check_template
from prmkit.generate.backends import PromptBackend
from prmkit.generate.config import SamplerConfig
from prmkit.generate.prompts import build_prompt
from prmkit.generate.rollout import PrefixRequest, partial_answer, rollout_prefixes
from prmkit.generate.rollout_records import Rollout
from prmkit.label.base import Labeled, LabelerModelConfig
from prmkit.label.rollout_batches import Plan, label_stream, run_plan
from prmkit.models.loading import resolve_model

__all__ = ["PoolRollouts", "PrefixRoller", "RolloutLabelConfig", "rollout_skip_reason"]

# settings that change no score (kept out of the records' params, so a re-run may change them)
_NOT_PARAMS = ("batch_size", "base_url")
_SCOPE = "Math-Shepherd/OmegaPRM: "  # `prmkit label` has the flags of every labeler: these name the ones they set


def _sampler_field(name: str, text: str, **metadata: Any) -> Any:
    """`SamplerConfig`'s field `name` with its default, and the help `text` naming the labelers it serves."""
    return field(default=SamplerConfig.__dataclass_fields__[name].default, metadata={"help": _SCOPE + text, **metadata})


@dataclass
class RolloutLabelConfig(LabelerModelConfig, SamplerConfig):
    """Settings of the rollout labelers: `SamplerConfig`'s, at its defaults (the generation defaults, MCNIG sec 4.2),
    with K the number M of rollouts per prefix, 8 as in the MCNIG paper's comparison (appendix A) and Math-Shepherd
    (Wang et al. 2024, N = 8 completions); `model` is every labeler's (`LabelerModelConfig`). `rollouts`, K's old
    name, is a deprecated alias (`--rollouts`, `rollouts=`, a `rollouts:` key); the records' `params` still name K
    `rollouts`, so files labeled before resume."""

    k: int = _sampler_field("k", "completions M per prefix", aliases=("rollouts",))
    temperature: float = _sampler_field("temperature", "sampling temperature")
    top_p: float = _sampler_field("top_p", "nucleus sampling mass")
    max_new_tokens: int = _sampler_field("max_new_tokens", "tokens per rollout at most")
    seed: int = _sampler_field("seed", "base seed of the rollouts")
    backend: str = _sampler_field("backend", "generation backend")
    chat: bool = _sampler_field("chat", "prompts in the chat template")
    batch_size: int = _sampler_field("batch_size", "sequences per generation batch")
    base_url: str = _sampler_field("base_url", "OpenAI-compatible server (openai backend)")
    dtype: str | None = _sampler_field("dtype", "weights dtype of the rollout model (transformers: float32 on a "
                                                "CPU, bfloat16 on a GPU when unset; on a CPU bfloat16 samples ~1.7x "
                                                "faster with bf16 matrix units, other samples)")

    def params(self, method: str) -> dict[str, Any]:
        names = {"k": "rollouts"}  # K's key in the records' params: every label file, old and new, resumes on it
        return {"method": method} | {names.get(k, k): v for k, v in asdict(self).items() if k not in _NOT_PARAMS}


def rollout_skip_reason(pool: Pool) -> str | None:
    """Rollout labels need the reference answer and each trace's own verdict (the final step's label)."""
    if not pool.problem.answer.strip():
        return "no reference answer"
    if any(t.correct is None for t in pool.traces):
        return "a trace without a verdict"
    return None


class PrefixRoller:
    """M validated continuations after step prefixes, with the per-trace ledger (see the module doc).

    `backend` replaces building one from `config` (e.g. a model already in memory).
    """

    def __init__(self, config: RolloutLabelConfig, backend: PromptBackend | None = None):
        if config.k < 1:
            raise ValueError(f"k (rollouts per prefix) must be >= 1, got {config.k}")
        self.config, self.backend = config, backend if backend is not None else config.make_backend()
        self.sampling = config.sampling()

    @property
    def prefixes_per_batch(self) -> int:
        """Prefixes per generation batch: `batch_size` rows of K continuations each (one prefix at least)."""
        return max(1, self.config.batch_size // self.config.k)

    def for_pool(self, pool: Pool) -> PoolRollouts:
        """The rollouts of one pool's labeling: identical prefixes rolled out once and shared (module doc)."""
        return PoolRollouts(self, pool)

    def unreadable(self, pool: Pool, ids: Set[str]) -> dict[str, str]:
        """{trace id: why} for the traces in `ids` whose longest rolled-out prefix (prompt + every step but the
        last) leaves no room to generate in the model's context; tokenizer only."""
        context = self.backend.context_length()
        if not context:
            return {}
        prompt = self.backend.render(build_prompt(pool.problem, self.sampling.template))
        out = {}
        for t in pool.traces:
            if t.id in ids and t.steps:
                n = self.backend.count_tokens(partial_answer(prompt, t.steps[:-1])) or 0
                if n + self.config.max_new_tokens > context:
                    out[t.id] = (f"prompt and prefix have {n} tokens: with {self.config.max_new_tokens} new tokens "
                                 f"that exceeds the model's context of {context}")
        return out

    def step_tokens(self, pool: Pool, trace: Trace) -> float:
        """The mean tokens per step of `trace` as rolled out (its partial answer after the prompt)."""
        if not trace.steps:
            return 0.0
        prompt = self.backend.render(build_prompt(pool.problem, self.sampling.template))
        full = self.backend.count_tokens(partial_answer(prompt, trace.steps)) or 0
        return max(0, full - (self.backend.count_tokens(prompt) or 0)) / len(trace.steps)


class PoolRollouts:
    """The rollouts of one labeling call on one pool: `roll` asks for (trace, n) prefixes, in one or several rounds
    (OmegaPRM's binary searches); a prefix already rolled out in this call, or asked for twice, is sampled once.
    `ledger` then splits each rollout's tokens among the traces that asked for it."""

    def __init__(self, roller: PrefixRoller, pool: Pool):
        self.roller, self.pool = roller, pool
        self.owner: dict[tuple[str, ...], str] = {}
        for t in pool.traces:
            for n in range(1, len(t.steps)):
                self.owner.setdefault(tuple(t.steps[:n]), f"{t.id}@{n}")
        self.owner[()] = f"{pool.problem.id}@0"
        self.done: dict[str, Rollout] = {}
        self.askers: dict[str, set[str]] = {}

    def request_id(self, trace: Trace, n: int) -> str:
        return self.owner.get(tuple(trace.steps[:n]), f"{trace.id}@{n}")

    def roll(self, prefixes: Sequence[tuple[Trace, int]]) -> dict[tuple[str, int], Rollout]:
        """{(trace id, n): its rollout} for each (trace, n) asked for; the new prefixes sampled in shared batches."""
        ids, new = self.ask(prefixes)
        if new:
            stats = rollout_prefixes(new, self.roller.backend, self.roller.sampling,
                                     prefixes_per_batch=self.roller.prefixes_per_batch)
            self.done |= {r.prefix_id: r for r in stats.records}
        return self.answers(ids)

    def ask(self, prefixes: Sequence[tuple[Trace, int]]) -> tuple[dict[tuple[str, int], str], list[PrefixRequest]]:
        """The request id of each (trace, n) asked for, and the requests not rolled out yet (each once); the
        askers are noted for the ledger. `answers(ids)` reads the rollouts once `done` holds them all."""
        ids = {(t.id, n): self.request_id(t, n) for t, n in prefixes}
        new: dict[str, PrefixRequest] = {}
        for t, n in prefixes:
            rid = ids[(t.id, n)]
            self.askers.setdefault(rid, set()).add(t.id)
            if rid not in self.done and rid not in new:
                new[rid] = PrefixRequest(rid, self.pool.problem, tuple(t.steps[:n]))
        return ids, list(new.values())

    def answers(self, ids: Mapping[tuple[str, int], str]) -> dict[tuple[str, int], Rollout]:
        return {key: self.done[rid] for key, rid in ids.items()}

    def ledger(self, trace: Trace, rollouts: Sequence[Rollout]) -> dict[str, Any]:
        """The measured cost of `trace`'s queried prefixes (module doc; paper_tokens is added by the labeler)."""
        order = {t.id: k for k, t in enumerate(self.pool.traces)}

        def share(tokens: int, r: Rollout) -> int:  # an integer split: the ledgers of the askers sum to `tokens`
            askers = sorted(self.askers.get(r.prefix_id, {trace.id}), key=lambda a: order.get(a, len(order)))
            base, rest = divmod(tokens, len(askers))
            return base + (askers.index(trace.id) < rest if trace.id in askers else 0)

        longest = max(rollouts, key=lambda r: r.prefix_steps, default=None)
        return {"tokens_read": sum(share(r.tokens_read or 0, r) for r in rollouts),
                "tokens_generated": sum(share(r.tokens_generated, r) for r in rollouts),
                "tokens_read_cached": (longest.tokens_read or 0) if longest else 0,
                "prefixes": len(rollouts),
                "prefixes_shared": sum(len(self.askers.get(r.prefix_id, ())) > 1 for r in rollouts),
                "rollouts": sum(len(r.continuations) for r in rollouts),
                "steps": len(trace.steps), "step_tokens": round(self.roller.step_tokens(self.pool, trace), 2)}

    def spent(self) -> tuple[int, int]:
        """(tokens read, tokens generated) of every prefix rolled out in this call, each once."""
        return (sum(r.tokens_read or 0 for r in self.done.values()),
                sum(r.tokens_generated for r in self.done.values()))


class RolloutLabeler:
    """What the rollout labelers share: their settings, a `PrefixRoller`, the methods they serve, and the
    recipe's questions (params, traces too long, skips). A subclass sets `NAME` and `METHODS` and writes `plan`:
    one pool's labeling, as rounds of prefixes (`prmkit.label.rollout_batches`); `label` runs it on one pool,
    `label_stream` on many, their prefixes in shared batches, with the same records."""

    config_class: ClassVar[type] = RolloutLabelConfig
    NAME: ClassVar[str] = ""
    METHODS: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def check(cls, config: RolloutLabelConfig) -> None:
        """The rollouts sample `config.model`: it exists, and a warm start is given the template it learnt."""
        check_template(resolve_model(config.model), config.template)

    def __init__(self, config: RolloutLabelConfig, methods: Sequence[str], backend: PromptBackend | None = None):
        if unknown := [m for m in methods if m not in self.METHODS]:
            raise ValueError(f"the {self.NAME} labeler has no method {unknown}; it has {sorted(self.METHODS)}")
        self.config, self.methods = config, tuple(methods)
        self.roller = PrefixRoller(config, backend)

    def params(self, method: str) -> dict[str, Any]:
        return self.config.params(method)

    def unreadable(self, pool: Pool, ids: Set[str]) -> dict[str, str]:
        return self.roller.unreadable(pool, ids)

    def skip_reason(self, pool: Pool, method: str) -> str | None:
        return rollout_skip_reason(pool)

    def pending(self, pool: Pool, todo: Mapping[str, Set[str]]) -> list[Trace]:
        """The traces some method still owes; a pool the labeler cannot label is an error naming it."""
        if reason := rollout_skip_reason(pool):
            raise ValueError(f"{self.NAME} cannot label problem {pool.problem.id}: {reason}")
        return [t for t in pool.traces if any(t.id in ids for ids in todo.values())]

    def plan(self, pool: Pool, todo: Mapping[str, Set[str]], rolls: PoolRollouts) -> Plan:
        raise NotImplementedError

    def label(self, pool: Pool, todo: Mapping[str, Set[str]]) -> Labeled:
        rolls = self.roller.for_pool(pool)
        return run_plan(self.plan(pool, todo, rolls), rolls)

    def label_stream(self, items: Iterable[tuple[Pool, Mapping[str, Set[str]]]]) -> Iterator[Labeled]:
        """`label` of each (pool, todo), in order, the prefixes of many pools in each generation batch."""
        return label_stream(self.roller, self.plan, items)
