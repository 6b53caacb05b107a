"""`prmkit verify`: re-validate the answers of a pool file (MCNIG paper, sec. 3.1), answer sets included."""

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from prmkit.data.answers import distinct_answers
from prmkit.data.formats import read_pools
from prmkit.data.jsonl import write_records
from prmkit.data.outputs import claim_outputs, claims
from prmkit.data.records import Pool
from prmkit.data.settings import NON_NEGATIVE, check_limits
from prmkit.domains import STEP, extract_answer, verify_answers
from prmkit.generate.generation_recipe import solve_rate

__all__ = ["VerifyConfig", "reverify_file"]


@dataclass
class VerifyConfig:
    """`prmkit verify`: the pools, what to show and whether to re-extract the answers first."""

    pools: str | None = field(default=None, metadata={"help": "Pool jsonl", "positional": True, "role": "input"})
    output: str | None = field(default=None, metadata={"help": "write the re-validated pools here.", "role": "output"})
    show: int = field(default=10, metadata={"help": "list at most this many changed verdicts.", "range": NON_NEGATIVE})
    reextract: bool = field(default=False, metadata={"help": "extract each answer again from the steps first "
                                                             "(after an extractor change)."})
    allow_duplicates: bool = field(default=False, metadata={"help": "keep the first of repeated problem ids "
                                                                    "instead of refusing the input."})

    def __post_init__(self) -> None:
        check_limits(self)


def _stored_answers(pool: Pool) -> list[str]:
    """The answers of the stored sets C_q, W_q that none of the pool's traces holds."""
    own = {t.answer for t in pool.traces}
    stored = pool.problem.meta.get("correct_answers", []) + pool.problem.meta.get("incorrect_answers", [])
    return [a for a in dict.fromkeys(stored) if a not in own]


def reverify_file(cfg: VerifyConfig, log: Callable[[str], None] = print) -> int:
    """Re-validate every trace of the Pool file `cfg.pools` (into `cfg.output`, or show the changes); returns the
    number of changed verdicts. With `reextract`, each answer is first extracted again from the trace's steps
    (rejoined with `[STEP]`); traces that now have no answer get `answer=None` and fail."""
    with claim_outputs(**claims(cfg)):
        pools = list(read_pools(cfg.pools or "", "pool", cfg.allow_duplicates))
        if cfg.reextract:
            moved = 0
            for pool in pools:
                for k, t in enumerate(pool.traces):
                    answer = extract_answer(pool.problem.domain, f" {STEP} ".join(t.steps))
                    moved += answer != t.answer
                    pool.traces[k] = replace(t, answer=answer)
            log(f"re-extracted answers: {moved} changed")
        pairs = [(p.problem, t.answer) for p in pools for t in p.traces]
        # the stored answer sets (all K samples, before filtering) too: a filtered file keeps them whole
        kept = [_stored_answers(p) for p in pools]
        stored = [(p.problem, a) for p, answers in zip(pools, kept, strict=True) for a in answers]
        verdicts = verify_answers(pairs + stored)
        of_traces, of_stored = iter(verdicts[: len(pairs)]), iter(verdicts[len(pairs) :])
        changed, out = [], []
        for pool, answers in zip(pools, kept, strict=True):
            traces = []
            for t in pool.traces:
                v = next(of_traces)
                if v.ok != t.correct:
                    changed.append(f"  {t.id}: stored {t.correct} -> {v.ok} ({v.reason}; answer {t.answer!r})")
                traces.append(replace(t, correct=v.ok))
            correct, wrong = distinct_answers(traces)
            for a in answers:
                (correct if next(of_stored).ok else wrong).append(a)
            meta = {**pool.problem.meta, "correct_answers": list(dict.fromkeys(correct)),
                    "incorrect_answers": list(dict.fromkeys(wrong))}
            out.append(Pool(replace(pool.problem, meta=meta), traces))
        log(f"{len(pairs)} traces in {len(pools)} pools: {len(pairs) - len(changed)} verdicts unchanged, "
            f"{len(changed)} changed")
        log("\n".join(changed[: cfg.show]))
        per_trace, per_problem = solve_rate(out)
        log(f"solve rate: {per_trace:.1%} of traces correct, {per_problem:.1%} of problems solved at least once")
        if cfg.output:
            write_records(cfg.output, out)
            log(f"wrote {len(out)} pools to {cfg.output}")
        return len(changed)
