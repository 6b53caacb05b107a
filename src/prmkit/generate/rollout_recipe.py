"""The `rollout` recipe: read pools, list their step prefixes, roll each out K times, summarise the file."""

import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from prmkit.data.formats import read_pools
from prmkit.data.jsonl import read_records
from prmkit.data.lengths import check_lengths
from prmkit.data.outputs import claim_outputs, claims
from prmkit.generate.config import RolloutConfig
from prmkit.generate.distributed import Resident, make_executor, progress_bar
from prmkit.generate.rollout import RolloutStats, prefix_requests, rollout_prefixes
from prmkit.generate.rollout_records import Rollout
from prmkit.models.loading import context_length

__all__ = ["RolloutReport", "run_rollout"]


@dataclass
class RolloutReport:
    """This run's sampling (`stats`) and the totals over every requested prefix in the output file."""

    stats: RolloutStats
    output: Path
    prefixes: int = 0
    rollouts: int = 0
    tokens_generated: int = 0
    tokens_read: int = 0
    solved: int = 0
    baseline_solved: int = 0  # of the no-prefix baseline rollouts
    baseline_rollouts: int = 0
    wall_seconds: float = 0.0

    @property
    def solve_rate(self) -> float:
        return self.solved / self.rollouts if self.rollouts else 0.0

    def lines(self) -> list[str]:
        s = self.stats
        tok_s = s.tokens_generated / s.seconds if s.seconds else 0.0
        base = (f"; no-prefix baseline {self.baseline_solved}/{self.baseline_rollouts}"
                if self.baseline_rollouts else "")
        return [f"rolled out {s.prefixes} prefixes ({s.skipped} already in {self.output}): {s.tokens_generated} "
                f"tokens generated in {s.seconds:.1f}s sampling = {tok_s:.1f} tok/s ({self.wall_seconds:.1f}s wall "
                "incl. validation)",
                f"{self.prefixes} prefixes, {self.rollouts} rollouts, {self.tokens_generated} tokens generated, "
                f"{self.tokens_read} tokens read",
                f"solve rate: {self.solved}/{self.rollouts} = {self.solve_rate:.1%} of rollouts correct{base}"]


def _totals(report: RolloutReport, records: list[Rollout]) -> None:
    report.prefixes = len(records)
    report.rollouts = sum(len(r.continuations) for r in records)
    report.tokens_generated = sum(r.tokens_generated for r in records)
    report.tokens_read = sum(r.tokens_read or 0 for r in records)
    report.solved = sum(r.solved for r in records)
    report.baseline_solved = sum(r.solved for r in records if r.prefix_steps == 0)
    report.baseline_rollouts = sum(len(r.continuations) for r in records if r.prefix_steps == 0)


def run_rollout(config: RolloutConfig, progress: bool = True,
                log: Callable[[str], None] = lambda _: None) -> RolloutReport:
    """config.k continuations after each chosen prefix of every trace of `config.input`, appended to `config.output`."""
    output = config.output or ""
    if not config.input:
        raise ValueError("no input: set --input (a pool file or demo)")
    # held for the whole run: the append and the totals read back
    with claim_outputs(**claims(config)):
        pools = list(itertools.islice(read_pools(config.input), config.limit))
        pools, _ = check_lengths(pools, context_length(config.model), "the rollout model", flag=None)  # before loading
        requests = prefix_requests(pools, config.positions)
        cfg = config.sampling()
        log(f"{len(requests)} prefixes of {len(pools)} pools from {config.input}; K={cfg.n}, T={cfg.temperature}, "
            f"top-p={cfg.top_p}, max_new_tokens={cfg.max_new_tokens}, backend={config.backend}, "
            f"model={config.model}")
        backend = Resident(config.make_backend)  # here (to check the prefixes) and once per Ray actor
        wall = time.perf_counter()
        with progress_bar(progress, len(requests), "prefix", "rollout") as tick:
            stats = rollout_prefixes(requests, backend, cfg, output, max(1, config.batch_size // cfg.n),
                                     progress=tick, executor=make_executor(config))
        report = RolloutReport(stats, Path(output), wall_seconds=time.perf_counter() - wall)
        wanted = {r.prefix_id for r in requests}
        _totals(report, [r for r in read_records(output, Rollout.from_dict) if r.prefix_id in wanted])
        return report
