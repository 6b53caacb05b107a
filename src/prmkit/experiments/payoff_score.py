"""`prmkit payoff score`: the row of a scorer that needs no training (the bench's exact checker `truth:`, the rule
verifier `rule:`), written as `payoff run` writes a row (docs/payoff.md)."""

import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from prmkit.data.manifest import keep_settings
from prmkit.data.outputs import atomic_path, claim_outputs, claims
from prmkit.data.settings import field_help as _help
from prmkit.experiments.payoff import ROW, SETTINGS, check_unfiltered
from prmkit.experiments.payoff_kept import keep_row, read_fresh

__all__ = ["PayoffScoreConfig", "score_payoff"]

@dataclass
class PayoffScoreConfig:
    """`prmkit payoff score`: an untrained scorer's row."""

    scorer: str = field(default="", metadata=_help(
        "the scorer, a spec KIND:PATH (`prmkit.models.scorer_spec`): truth:PROBLEMS (the exact checker over the "
        "fresh problems, e.g. the fresh pools file) or rule: (each step's arithmetic)"))
    fresh: str = field(default="", metadata=_help(
        "Pool JSONL of the policy's K samples of fresh problems (`prmkit generate --no-filter`)", role="input"))
    output: str = field(default="", metadata=_help("row directory: scores.jsonl, row.json", role="output-dir"))
    name: str | None = field(default=None, metadata=_help("the row's name in the table (default: the scorer kind)"))
    keep: str | None = field(default=None, metadata=_help(
        "a directory the repository keeps: the row's kept file goes there as NAME.jsonl.gz"))
    threads: int = field(default=0, metadata=_help("torch CPU threads (0 = torch default)"))

    def __post_init__(self) -> None:
        for name in ("scorer", "fresh", "output"):
            if not getattr(self, name):
                raise ValueError(f"payoff score needs --{name}")


def score_payoff(cfg: PayoffScoreConfig) -> dict[str, Any]:
    """Score the fresh samples with `cfg.scorer` and write the row (row.json, beside scores.jsonl); returns it."""
    from prmkit.evaluate.score import ScoreConfig, score_to_file
    from prmkit.models.scorer_spec import parse_scorer_spec, scorer_identity

    kind = parse_scorer_spec(cfg.scorer)[0]
    out = Path(cfg.output)
    with claim_outputs(**claims(cfg)):
        if not Path(cfg.fresh).is_file():
            raise FileNotFoundError(f"--fresh {cfg.fresh}: no such file")
        fresh = read_fresh(cfg.fresh)
        check_unfiltered(cfg.fresh)
        out.mkdir(parents=True, exist_ok=True)
        keep_settings(out / SETTINGS, {k: v for k, v in asdict(cfg).items() if k != "output"} |
                      {"identity": scorer_identity(cfg.scorer)}, "a row", skip={"threads", "keep"})
        start = time.perf_counter()
        scored = score_to_file(cfg.scorer, fresh, out / "scores.jsonl", ScoreConfig(threads=cfg.threads))
        row = {"name": cfg.name or kind, "labeler": f"{kind} (untrained)", "kind": kind, "traces": "none",
               "train_problems": 0, "seed": None, "scorer": cfg.scorer,
               "label_cost": {"tokens_read": 0, "tokens_generated": 0, "seconds": 0.0, "known": True},
               "train": {"seconds": 0.0, "train_seconds": 0.0, "examples": 0, "peak_rss_gb": 0.0},
               "fresh": {"path": cfg.fresh, "problems": len(fresh), "traces": sum(len(p.traces) for p in fresh)},
               "score": {"written": scored["written"], "seconds": round(time.perf_counter() - start, 1)},
               "scores": str(out / "scores.jsonl"), "model": None}
        with atomic_path(out / ROW) as tmp:
            tmp.write_text(json.dumps(row, indent=1) + "\n")
        if cfg.keep:
            keep_row(row, out / "scores.jsonl", fresh, cfg.keep)
    return row


def format_score_row(row: dict[str, Any], cfg: Any) -> str:
    return f"{row['name']}: {row['score']['written']} fresh traces scored by {cfg.scorer} -> {cfg.output}"
