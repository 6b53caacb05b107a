"""The `generate` recipe: load problems, sample, validate, filter; returns a report of what it did."""

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from statistics import fmean

from prmkit.data.jsonl import read_records, write_records
from prmkit.data.lengths import check_lengths
from prmkit.data.manifest import keep_file_settings, settings_beside, write_manifest
from prmkit.data.outputs import claim_outputs, claims
from prmkit.data.records import Pool
from prmkit.domains import domain
from prmkit.generate.config import GenerateConfig
from prmkit.generate.distributed import Resident, make_executor, progress_bar
from prmkit.generate.filtering import FilterReport, filter_pools
from prmkit.generate.sample_pools import GenerationStats, generate_pools
from prmkit.generate.sources import load_problems
from prmkit.models.loading import context_length

__all__ = ["GenerationReport", "raw_path", "run_generation", "solve_rate"]


def solve_rate(pools: list[Pool]) -> tuple[float, float]:
    """(fraction of traces correct, fraction of problems with at least one correct trace)."""
    traces = [t for p in pools for t in p.traces]
    if not traces:
        return 0.0, 0.0
    return fmean(bool(t.correct) for t in traces), fmean(any(t.correct for t in p.traces) for p in pools)


def raw_path(output: str | Path) -> Path:
    """Where every generated pool goes by default: OUTPUT with `.raw.jsonl`."""
    output = Path(output)
    return output.with_name(output.name.removesuffix(".jsonl") + ".raw.jsonl")


@dataclass
class GenerationReport:
    """What a generation run did: sampling counts, solve rates, the filter's stages, where it wrote."""

    stats: GenerationStats
    raw: Path
    output: Path
    pools_written: int = 0
    traces_correct: float = 0.0  # fraction of the generated traces (raw file, this run's problems)
    problems_solved: float = 0.0  # fraction of problems with at least one correct trace
    wall_seconds: float = 0.0  # sampling and validation
    filter_report: FilterReport | None = None
    pools: list[Pool] = field(default_factory=list, repr=False)

    def lines(self) -> list[str]:
        s = self.stats
        out = [f"generated {s.problems} problems ({s.skipped} already in {self.raw}): {s.tokens} tokens in "
               f"{s.seconds:.1f}s sampling = {s.tokens_per_second:.1f} tok/s ({self.wall_seconds:.1f}s wall incl. "
               "validation)",
               f"solve rate: {self.traces_correct:.1%} of traces correct, {self.problems_solved:.1%} of problems "
               "solved at least once"]
        out += self.filter_report.lines() if self.filter_report else []
        return [*out, f"wrote {self.pools_written} pools to {self.output}"]


def run_generation(config: GenerateConfig, progress: bool = True,
                   log: Callable[[str], None] = lambda _: None) -> GenerationReport:
    """Sample config.k traces per problem into `config.raw` (append-only, resumable; default OUTPUT.raw.jsonl),
    then write the filtered pools (all of them with `config.filter` off) to `config.output`, and its manifest beside
    it (the settings, `filter` among them, and both files). Both paths are claimed before the model loads."""
    output = config.output or ""
    if not config.data:
        raise ValueError("no data: set --data (demo, humaneval or a jsonl file)")
    if config.domain is not None:
        domain(config.domain)  # an unknown one is refused before any file is touched
    raw = Path(config.raw) if config.raw else raw_path(output)
    with claim_outputs(**claims(config, outputs={"--raw": raw, "raw settings": settings_beside(raw)})):
        cfg = config.sampling()
        problems = load_problems(config.data, config.limit, config.domain)
        check_lengths([Pool(p, []) for p in problems], context_length(config.model), "the model",
                      flag=None)  # before it loads
        _check_resume(config, raw)
        log(f"{len(problems)} problems from {config.data}; K={cfg.n}, T={cfg.temperature}, top-p={cfg.top_p}, "
            f"max_new_tokens={cfg.max_new_tokens}, backend={config.backend}, model={config.model}")
        sampler = Resident(config.make_backend)  # loaded where the batches run: here on first use, or per Ray actor
        wall = time.perf_counter()
        with progress_bar(progress, len(problems), "problem", "generate") as tick:
            stats = generate_pools(problems, sampler, cfg, raw, max(1, config.batch_size // cfg.n),
                                   f"{config.backend}:{config.model}", progress=tick, executor=make_executor(config))
        report = GenerationReport(stats, raw, Path(output), wall_seconds=time.perf_counter() - wall)
        wanted = {p.id for p in problems}
        pools = [p for p in read_records(raw, Pool.from_dict) if p.problem.id in wanted]
        report.traces_correct, report.problems_solved = solve_rate(pools)
        if config.filter:
            pools, report.filter_report = filter_pools(pools, config.max_traces, cfg.seed)
        report.pools_written = write_records(output, pools)
        report.pools = pools
        write_manifest(output, "generate", config, inputs={"data": config.data}, outputs={"pools": output, "raw": raw},
                       cost={"tokens": stats.tokens, "seconds": round(stats.seconds, 1), "samples": stats.samples})
        return report


def _check_resume(config: GenerateConfig, raw: Path) -> None:
    """A re-run may only extend a raw file sampled with the same settings (a pool of K=2 next to pools of K=8
    would be reused as it is); the settings are written beside it on the first run."""
    d = config.decoding
    settings = {"model": config.model, "backend": config.backend, "k": config.k, "temperature": d.temperature,
                "top_p": d.top_p, "max_new_tokens": d.max_new_tokens, "seed": d.seed, "chat": d.chat,
                "domain": config.domain, "template": d.template}
    keep_file_settings(raw, settings, "sampled", "use a new --output (or --raw) to sample again, or the same "
                       "settings to resume")
