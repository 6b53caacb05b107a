"""`prmkit payoff score`: the row of a scorer that needs no training (the bench's exact checker `truth:`, the rule
verifier `rule:`), written as `payoff run` writes a row (docs/payoff.md)."""

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prmkit.data.manifest import fixed_settings, keep_settings, may_change
from prmkit.data.outputs import claim_outputs, claims
from prmkit.data.settings import field_help as _help
from prmkit.experiments.payoff import SETTINGS, check_unfiltered, score_row
from prmkit.experiments.payoff_kept import read_fresh

__all__ = ["PayoffScoreConfig", "score_payoff"]


@dataclass
class PayoffScoreConfig:
    """`prmkit payoff score`: an untrained scorer's row."""

    scorer: str = field(default="", metadata=_help(
        "the scorer, a spec KIND:PATH (`prmkit.models.scorer_spec`): truth:PROBLEMS (the exact checker over the "
        "fresh problems, e.g. the fresh pools file) or rule: (each step's arithmetic)"))
    fresh: str = field(default="", metadata=_help(
        "Pool JSONL of the policy's K samples of fresh problems (`prmkit generate --no-filter`)", role="input"))
    output: str = field(default="", metadata=_help("row directory: scores.jsonl, row.json", resume="may-change",
                                                   role="output-dir"))
    name: str | None = field(default=None, metadata=_help("the row's name in the table (default: the scorer kind)"))
    keep: str | None = field(default=None, metadata=_help(
        "a directory the repository keeps: the row's kept file goes there as NAME.jsonl.gz", resume="may-change"))
    threads: int = field(default=0, metadata=_help("torch CPU threads (0 = torch default)", resume="may-change"))

    def __post_init__(self) -> None:
        for name in ("scorer", "fresh", "output"):
            if not getattr(self, name):
                raise ValueError(f"payoff score needs --{name}")


def score_payoff(cfg: PayoffScoreConfig) -> dict[str, Any]:
    """Score the fresh samples with `cfg.scorer` and write the row (row.json, beside scores.jsonl); returns it."""
    from prmkit.models.scorer_spec import parse_scorer_spec, scorer_identity

    kind = parse_scorer_spec(cfg.scorer)[0]
    out = Path(cfg.output)
    with claim_outputs(**claims(cfg)):
        if not Path(cfg.fresh).is_file():
            raise FileNotFoundError(f"--fresh {cfg.fresh}: no such file")
        fresh = read_fresh(cfg.fresh)
        check_unfiltered(cfg.fresh)
        out.mkdir(parents=True, exist_ok=True)
        keep_settings(out / SETTINGS, fixed_settings(cfg) | {"identity": scorer_identity(cfg.scorer)}, "a row",
                      skip=may_change(cfg))
        head = {"name": cfg.name or kind, "labeler": f"{kind} (untrained)", "kind": kind, "traces": "none",
                "train_problems": 0, "seed": None, "scorer": cfg.scorer,
                "label_cost": {"tokens_read": 0, "tokens_generated": 0, "seconds": 0.0, "known": True},
                "train": {"seconds": 0.0, "train_seconds": 0.0, "examples": 0, "peak_rss_gb": 0.0}}
        return score_row(head, cfg.scorer, None, fresh, cfg.fresh, out, cfg.threads, cfg.keep)


def format_score_row(row: dict[str, Any], cfg: Any) -> str:
    return f"{row['name']}: {row['score']['written']} fresh traces scored by {cfg.scorer} -> {cfg.output}"
