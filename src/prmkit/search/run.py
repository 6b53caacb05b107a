"""The `search` recipe: each method on batches of problems, one record appended per problem, a summary per output,
and with several methods `compare.json`."""

import itertools
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from prmkit.data.formats import read_pools
from prmkit.data.jsonl import AppendOnlyWriter, read_records
from prmkit.data.lengths import check_lengths
from prmkit.data.manifest import fixed_settings, settings_beside
from prmkit.data.outputs import atomic_path, claim_outputs
from prmkit.data.records import Pool, Problem
from prmkit.data.settings import comma_list
from prmkit.generate.distributed import progress_bar
from prmkit.models.loading import context_length
from prmkit.models.scorer_spec import keep_scorer_file
from prmkit.search.beam import beam_search
from prmkit.search.bon import best_of_n
from prmkit.search.compare import compare_lines, compare_methods
from prmkit.search.config import BeamConfig
from prmkit.search.records import SearchResult, SearchStats

__all__ = ["METHODS", "SearchReport", "compare_path", "run_search"]


def _beam(problems: list[Problem], backend: Any, scorer: Any, config: BeamConfig, **kw: Any) -> list[SearchResult]:
    return beam_search(problems, backend, scorer, config.sampling(), config.width, config.max_steps,
                       config.aggregation, **kw)


def _bon(problems: list[Problem], backend: Any, scorer: Any, config: BeamConfig, **kw: Any) -> list[SearchResult]:
    return best_of_n(problems, backend, scorer, config.sampling(), config.max_steps, config.aggregation, **kw)


# method name -> search over a batch of problems (each result handed to `on_result` when it is done)
METHODS: dict[str, Callable[..., list[SearchResult]]] = {"beam": _beam, "bon": _bon}


@dataclass
class SearchReport:
    """One method's run (`stats`: this run only) and the totals over the wanted problems in its output file."""

    method: str
    output: Path
    stats: SearchStats
    problems: int = 0
    correct: int = 0
    majority_correct: int = 0
    tokens_generated: int = 0
    wall_seconds: float = 0.0

    def lines(self) -> list[str]:
        s, n = self.stats, max(self.problems, 1)
        return [f"{self.method}: searched {s.problems} problems in {s.generation_calls} generation calls (prefixes "
                f"per call: {s.prefixes_per_call}); {s.tokens_read} prompt+prefix tokens read; {s.tokens_generated} "
                f"tokens generated in {s.sampling_seconds:.1f}s sampling = {s.tokens_per_second:.1f} tok/s; scoring "
                f"{s.scoring_seconds:.1f}s; {self.wall_seconds:.1f}s wall",
                f"{self.method}: {self.problems} problems in {self.output}: accuracy {self.correct}/{self.problems} = "
                f"{self.correct / n:.1%}, majority vote {self.majority_correct}/{self.problems} = "
                f"{self.majority_correct / n:.1%}, {self.tokens_generated / n:.1f} generated tokens per problem"]


def _search_one(method: str, problems: list[Problem], backend: Any, scorer: Any, config: BeamConfig,
                output: Path, tick: Callable[[int], None] | None) -> SearchReport:
    report = SearchReport(method, output, SearchStats())
    wall = time.perf_counter()
    with AppendOnlyWriter(output, key=lambda d: d["problem_id"]) as writer:
        todo = [p for p in problems if p.id not in writer.done]

        def write(result: SearchResult) -> None:
            writer.write(result)
            if tick:
                tick(1)

        if tick:
            tick(len(problems) - len(todo))
        step = max(1, config.problems_per_batch)
        for i in range(0, len(todo), step):
            METHODS[method](todo[i : i + step], backend, scorer, config, stats=report.stats, on_result=write)
    report.wall_seconds = time.perf_counter() - wall
    wanted = {p.id for p in problems}
    done = [r for r in read_records(output, SearchResult.from_dict) if r.problem_id in wanted]
    report.problems, report.correct = len(done), sum(r.correct for r in done)
    report.majority_correct = sum(r.majority_correct for r in done)
    report.tokens_generated = sum(r.tokens_generated for r in done)
    return report


def run_search(config: BeamConfig, progress: bool = True,
               log: Callable[[str], None] = lambda _: None) -> list[SearchReport]:
    """Run each of `config.methods` (names in METHODS, "beam,bon") on `config.input`; `config.output` holds
    `{method}` when there are several."""
    methods, output = comma_list(config.methods), config.output
    if unknown := [m for m in methods if m not in METHODS]:
        raise ValueError(f"unknown search method(s) {unknown}; choose from {', '.join(METHODS)}")
    if len(methods) > 1 and "{method}" not in output:
        raise ValueError("with several methods, --output must contain {method}")
    if not config.input:
        raise ValueError("no input: set --input (demo or a problem file)")
    paths = {method: Path(output.replace("{method}", method)) for method in methods}
    claimed = {f"--output ({m})" if len(methods) > 1 else "--output": path for m, path in paths.items()}
    claimed |= {f"settings ({m})": settings_beside(path) for m, path in paths.items()}
    summary = compare_path(output) if len(methods) > 1 else None
    if summary is not None:
        claimed["--output (compare)"] = summary
    with claim_outputs(claimed, {"--input": config.input, "--prm": config.prm}):  # before any model loads
        problems = [pool.problem for pool in itertools.islice(read_pools(config.input), config.limit)]
        for method, path in paths.items():  # an output searched another way is refused before any model loads
            keep_scorer_file(path, config.prm, config.scorer, {"method": method} | fixed_settings(config), "searched",
                             "use a new --output to search again, or the same settings to resume")
        contexts = (context_length(config.model), context_length(config.prm) if config.prm else None)
        check_lengths([Pool(p, []) for p in problems], min(filter(None, contexts), default=None),
                      "the policy or the scorer", flag=None)  # before either loads
        scorer = config.make_scorer()
        backend = config.make_backend()
        log(f"{len(problems)} problems from {config.input}; N={config.k}, b={config.width}, max_steps="
            f"{config.max_steps}, {config.decoding.max_new_tokens} tokens per step, T={config.decoding.temperature}, "
            f"scorer {config.prm} ({config.aggregation}), policy {config.model}")
        reports = []
        for method in methods:
            with progress_bar(progress, len(problems), "problem", method) as tick:
                reports.append(_search_one(method, problems, backend, scorer, config, paths[method], tick))
            log("\n".join(reports[-1].lines()))
        if summary is not None:  # the methods on this run's problems: intervals, each minus best-of-N
            rows = compare_methods(paths, against="bon" if "bon" in paths else None, problems={p.id for p in problems})
            with atomic_path(summary) as tmp:
                tmp.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
            log("\n".join([*compare_lines(rows), f"wrote {summary}"]))
        return reports


def compare_path(output: str) -> Path:
    """Where several methods' comparison goes: the output pattern with `{method}` -> `compare`, as .json."""
    return Path(output.replace("{method}", "compare")).with_suffix(".json")
