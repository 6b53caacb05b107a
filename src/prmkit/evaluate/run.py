"""The `prmkit evaluate` verbs as Python functions: best-of-K and ProcessBench reports from files, each set by a
config dataclass, written as JSON (and a plot) when asked."""

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from prmkit.data.outputs import atomic_path, claim_outputs, claims
from prmkit.data.settings import COUNT, SEED, Range, SettingError, check_limits, parse_range
from prmkit.data.settings import field_help as _help
from prmkit.models.aggregate import AGGREGATIONS

__all__ = ["BokConfig", "ProcessBenchConfig", "best_of_k", "ks_list", "named_file", "named_files", "processbench"]


@dataclass
class BokConfig:
    """`prmkit evaluate bok`: best-of-K over score files (MCNIG sec 3.5, Table 2) and rank robustness (PUM 4.2)."""

    scores: list[str] = field(default_factory=list, metadata=_help(
        "NAME=PATH of a `prmkit score` output (repeat); PATH alone names it by the file"))
    ks: str = field(default="", metadata=_help(
        "comma list of K, each at most the largest pool (default: 1, 2, 4, ... up to the smallest pool)"))
    problems_range: str | None = field(default=None, metadata=_help("problems by order in the score files, e.g. 0:160"))
    weighted: bool = field(default=True, metadata=_help("add reward-weighted majority votes"))
    max_subsets: int = field(default=256, metadata=_help("K-subsets per pool (all when fewer)", range=COUNT))
    bootstrap: int = field(default=1000, metadata=_help("bootstrap resamples for the 95% interval",
                                                        range=Range(1, 1_000_000)))
    aggregation: str | None = field(default=None, metadata=_help(
        f"re-aggregate the stored step scores ({' | '.join(AGGREGATIONS)}) instead of each file's `score`"))
    seed: int = field(default=0, metadata=_help("seed of the K-subsets and the bootstrap", range=SEED))
    plot: str | None = field(default=None, metadata=_help("write the accuracy-vs-K PNG here", role="output"))
    output: str | None = field(default=None, metadata=_help("write the report as JSON here", role="output"))

    def __post_init__(self) -> None:
        check_limits(self)
        if bad := [k for k in ks_list(self.ks) if not isinstance(k, int) or k < 1]:
            raise SettingError("ks", f"--ks {bad[0]!r}: each K must be a whole number, at least 1")


@dataclass
class ProcessBenchConfig:
    """`prmkit evaluate processbench`: first-error identification (ProcessBench protocol: tau held out)."""

    benchmark: str = field(default="", metadata=_help("step-level benchmark file (e.g. `prmkit data corrupt`)",
                                                      role="input"))
    benchmark_format: str = field(default="processbench", metadata=_help("processbench | prm800k | math-shepherd"))
    scores: list[str] = field(default_factory=list, metadata=_help(
        "NAME=PATH of `prmkit score` or `prmkit label` files (repeat)"))
    scorers: list[str] = field(default_factory=list, metadata=_help(
        "NAME=SPEC of step scorers that score the benchmark's steps themselves (models.scorer_spec: "
        "KIND:PATH,KEY=VALUE; repeat)"))
    choose_on: str = field(default="0:100", metadata=_help("problems whose F1 chooses tau"))
    report_on: str = field(default="100:", metadata=_help("problems reported at that tau"))
    output: str | None = field(default=None, metadata=_help("write the report as JSON here", role="output"))

    def __post_init__(self) -> None:
        check_limits(self)
        parse_range(self.choose_on, "choose_on")
        parse_range(self.report_on, "report_on")


def named_file(item: str | os.PathLike[str]) -> tuple[str, str]:
    """NAME=PATH -> (NAME, PATH); PATH alone is named by its file, without `.jsonl`."""
    name, sep, path = str(item).partition("=")
    return (name, path) if sep else (os.path.basename(item).removesuffix(".jsonl"), str(item))


def named_files(items: Sequence[str] | str) -> dict[str, str]:
    """NAME=PATH items (or PATH alone, named by its file) -> {name: path}."""
    files = dict(map(named_file, [items] if isinstance(items, str | os.PathLike) else items))
    if not files:
        raise ValueError("give at least one score file (NAME=PATH)")
    return files


def ks_list(ks: str | Sequence[int]) -> list[int]:
    """"1,2,4" or [1, 2, 4] as a list; a SettingError for a string that is not a comma list of numbers."""
    if not isinstance(ks, str):
        return list(ks)
    try:
        return [int(k) for k in ks.split(",") if k.strip()]
    except ValueError:
        raise SettingError("ks", f"--ks {ks!r}: expected a comma list of whole numbers, e.g. 1,2,4") from None


def _write(path: str | None, report: dict[str, Any]) -> None:
    if path:
        with atomic_path(path) as tmp:
            tmp.write_text(json.dumps(report, indent=2), encoding="utf-8")


def best_of_k(cfg: BokConfig) -> dict[str, Any]:
    """The best-of-K report of `cfg.scores` (`report.bok_report`), written and plotted as `cfg` asks."""
    from prmkit.evaluate.report import bok_report

    files = named_files(cfg.scores)
    with claim_outputs(**claims(cfg, inputs={"--scores": list(files.values())})):
        report = bok_report(files, ks_list(cfg.ks), cfg.weighted, cfg.max_subsets, cfg.bootstrap, cfg.seed,
                            parse_range(cfg.problems_range), cfg.aggregation)
        _write(cfg.output, report)
        if cfg.plot:
            from prmkit.evaluate.plot import plot_bok

            plot_bok(report["rows"], cfg.plot, f"Best-of-K ({report['problems']} problems)")
    return report


def processbench(cfg: ProcessBenchConfig) -> dict[str, Any]:
    """First-error identification of each score file on `cfg.benchmark` (tau chosen on `choose_on`)."""
    from prmkit.data.steplevel import read_step_records
    from prmkit.evaluate.processbench import processbench_report, scorer_step_scores
    from prmkit.models.scorer_spec import parse_named_specs

    if not cfg.benchmark:
        raise ValueError("processbench needs a benchmark file (--benchmark FILE)")
    files = named_files(cfg.scores) if cfg.scores or not cfg.scorers else {}
    specs = parse_named_specs(cfg.scorers)
    with claim_outputs(**claims(cfg, inputs={"--scores": list(files.values())})):
        records = read_step_records(cfg.benchmark, cfg.benchmark_format)
        scored = {name: scorer_step_scores(records, spec, name) for name, spec in specs.items()}
        report = processbench_report(records, files, parse_range(cfg.choose_on), parse_range(cfg.report_on), scored)
        report |= {"benchmark": cfg.benchmark, "choose_on": cfg.choose_on, "report_on": cfg.report_on}
        _write(cfg.output, report)
    return report
