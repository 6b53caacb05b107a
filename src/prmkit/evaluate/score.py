"""Score candidate traces with any `StepScorer` into one record per trace, in input order (record format:
docs/reward_models.md, "Scoring")."""

import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from prmkit.data.formats import DEMO_INPUT, read_chosen_pools
from prmkit.data.jsonl import AppendOnlyWriter
from prmkit.data.lengths import check_lengths
from prmkit.data.manifest import settings_beside
from prmkit.data.outputs import claim_outputs, claims
from prmkit.data.records import Pool
from prmkit.data.settings import COUNT, THREADS, check_limits
from prmkit.data.settings import field_help as _help
from prmkit.models.aggregate import AGGREGATIONS, aggregate
from prmkit.models.loading import context_length
from prmkit.models.scorer import SCORERS, StepScorer, score_items
from prmkit.models.scorer_spec import keep_scorer_file, load_scorer_spec, parse_scorer_spec

__all__ = ["ScoreConfig", "score_file", "score_pools", "score_to_file"]


@dataclass
class ScoreConfig:
    """How `prmkit score` scores a pool file with a checkpoint (MCNIG sec 3.5: product of the step scores)."""

    scorer: str = field(default="reward-model", metadata=_help(
        f"kind of step scorer: {' | '.join(SCORERS)} (models.SCORERS; reward-model: a PRM, ORM or PUM value model); "
        "--model may also be a spec KIND:PATH,KEY=VALUE (models.scorer_spec)."))
    scorer_options: str | None = field(default=None, metadata=_help(
        "the scorer's options: a JSON object or a .json file, e.g. '{\"sep\": \"<extra_0>\"}' (the spec's own win)."))

    problems_range: str | None = field(default=None, metadata=_help(
        "problems by index in --input, e.g. 500:660; None = all."))
    aggregation: str | None = field(default=None, metadata=_help(
        f"step scores -> trace score: {' | '.join(AGGREGATIONS)}; None = the checkpoint's (prod)."))
    max_tokens: int = field(default=4096, metadata=_help("padded tokens per forward pass (a reward model).",
                                                         range=COUNT))
    max_batch: int = field(default=64, metadata=_help("traces per forward pass at most (a reward model).", range=COUNT))
    threads: int = field(default=0, metadata=_help("torch CPU threads (0 = torch default).", range=THREADS))
    window: int = field(default=512, metadata=_help(
        "traces scored together (batched by length) before their records are written in input order; a killed run "
        "redoes at most one window.", range=COUNT))
    model: str | None = field(default=None, metadata=_help(
        "checkpoint directory written by `prmkit train`, or a scorer spec KIND:PATH[,KEY=VALUE...], KIND one of "
        f"{', '.join(SCORERS)} (truth:PROBLEMS.jsonl: the bench's exact checker; rule: each step's own arithmetic, no "
        "PATH)", role="input") | {"required": True})
    input: str | None = field(default=None, metadata=_help("Pool JSONL or GSM8K candidates_dev.jsonl" + DEMO_INPUT,
                                                           role="input") | {"required": True})
    output: str | None = field(default=None, metadata=_help("score JSONL (one record per trace)", role="output")
                               | {"required": True})

    def __post_init__(self) -> None:
        check_limits(self)


def score_pools(scorer: StepScorer, pools: list[Pool], aggregation: str = "prod", kind: str = "",
                skip: set[str] | None = None, stats: dict | None = None, window: int = 512) -> Iterator[dict[str, Any]]:
    """Yield a score record per trace (skipping ids in `skip`) in input order, `window` traces scored at a time (a
    killed run loses one window at most); `stats` receives traces and seconds; `kind` goes into each record."""
    flat = [(pool, k, t) for pool in pools for k, t in enumerate(pool.traces) if t.id not in (skip or set())]
    stats = stats if stats is not None else {}
    stats.setdefault("traces", 0)
    stats.setdefault("seconds", 0.0)
    for start in range(0, len(flat), max(1, window)):
        chunk = flat[start : start + max(1, window)]
        began = time.perf_counter()
        done = dict(score_items(scorer, [(pool.problem.question, t.steps) for pool, _, t in chunk]))
        stats["seconds"] += time.perf_counter() - began
        for i, (pool, k, trace) in enumerate(chunk):
            p = done[i]
            stats["traces"] += 1
            yield {"id": trace.id, "problem_id": pool.problem.id, "index": k, "answer": trace.answer,
                   "correct": trace.correct, "kind": kind, "step_scores": p,
                   "aggregation": aggregation, "score": aggregate(p, aggregation)}


def score_file(cfg: ScoreConfig) -> dict[str, Any]:
    """Score the pools of `cfg.input` with the checkpoint `cfg.model` into `cfg.output` (`score_to_file`)."""
    model, input_path, output = cfg.model or "", cfg.input or "", cfg.output or ""
    # taken before the model loads: a second writer is refused at once, an input is never the output
    with claim_outputs(**claims(cfg, outputs={"score settings": settings_beside(output)})):
        return score_to_file(model, read_chosen_pools(input_path, cfg.problems_range), output, cfg)


def score_to_file(model: str | os.PathLike[str], pools: list[Pool], output: str | os.PathLike[str],
                  cfg: ScoreConfig) -> dict[str, Any]:
    """Score `pools` with `model` (loaded by `models.load_scorer` as a `cfg.scorer`) into `output`, appending and
    skipping ids already there. Returns {"written", "problems", "traces", "tokens", "seconds"} ("tokens": those the
    scorer read, where it counts them, else 0)."""
    import torch

    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    kind, path, _ = parse_scorer_spec(os.fspath(model), cfg.scorer)
    pools, _ = check_lengths(pools, context_length(path), "the scorer", flag=None)  # before the model loads
    scorer = load_scorer_spec(model, cfg.scorer, cfg.scorer_options)
    scorer.limit_batches(cfg.max_tokens, cfg.max_batch)
    kind, agg = scorer.kind or kind, cfg.aggregation or scorer.default_aggregation
    if agg not in AGGREGATIONS:
        raise ValueError(f"unknown aggregation '{agg}'; choose from {', '.join(AGGREGATIONS)}")
    scorer.check_fits(pools)
    stats: dict[str, Any] = {}
    with AppendOnlyWriter(output) as writer:  # an output scored another way is refused, not mixed into
        keep_scorer_file(output, model, cfg.scorer, {"scorer_options": cfg.scorer_options, "aggregation": agg})
        records = score_pools(scorer, pools, agg, kind, skip=set(writer.done), stats=stats, window=cfg.window)
        written = sum(writer.write(rec) for rec in records)
    return stats | {"written": written, "problems": len(pools), "tokens": scorer.scored_tokens}


def format_score(result: dict[str, Any], cfg: Any) -> str:
    rate = result["tokens"] / result["seconds"] if result["seconds"] else 0.0
    return (f"scored {result['written']} traces of {result['problems']} problems -> {cfg.output} "
            f"({result['tokens']} tokens, {rate:.0f} tok/s)")
