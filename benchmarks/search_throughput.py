"""Beam search vs best-of-N generation throughput on one backend (the ratio of their generated tok/s).

Both methods search the same problems with the same policy, scorer and settings (`BeamConfig` fields); they run
interleaved over `--repeats` (beam first on even repeats, best-of-N first on odd ones), so machine load hits both
alike. Printed per repeat and as means: generated tokens, sampling seconds (generation calls only, as `prmkit
search` reports them), generated tok/s, the beam/best-of-N ratio of tok/s, and the tok/s counting scoring time too.

    python benchmarks/search_throughput.py --prm runs/prm --backend ct2 --input demo --limit 20 --k 4 --repeats 2
"""

from __future__ import annotations

import argparse
import itertools
import time
from dataclasses import fields, replace

from prmkit.data.formats import read_pools
from prmkit.search import BeamConfig
from prmkit.search.records import SearchStats
from prmkit.search.run import METHODS


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--repeats", type=int, default=2)
    for f in fields(BeamConfig):
        kind = type(f.default) if f.default is not None else str
        kind = int if f.name in ("limit",) else kind
        if kind is bool:
            p.add_argument(f"--{f.name.replace('_', '-')}", action=argparse.BooleanOptionalAction, default=f.default)
        else:
            p.add_argument(f"--{f.name.replace('_', '-')}", type=kind, default=f.default)
    args = vars(p.parse_args())
    repeats = args.pop("repeats")
    config = BeamConfig(**args)
    problems = [pool.problem for pool in itertools.islice(read_pools(config.input), config.limit)]
    scorer, backend = config.make_scorer(), config.make_backend()
    print(f"{len(problems)} problems from {config.input}; N={config.k} b={config.width} max_steps={config.max_steps} "
          f"{config.max_new_tokens} tokens/step T={config.temperature}; backend {config.backend}; scorer {config.prm}",
          flush=True)
    totals: dict[str, list[SearchStats]] = {"beam": [], "bon": []}
    for r in range(repeats):
        order = ["beam", "bon"] if r % 2 == 0 else ["bon", "beam"]
        cfg = replace(config, seed=config.seed + r)
        for method in order:
            stats, start = SearchStats(), time.perf_counter()
            METHODS[method](problems, backend, scorer, cfg, stats=stats)
            wall = time.perf_counter() - start
            totals[method].append(stats)
            print(f"repeat {r} {method:4s}: {stats.tokens_generated:6d} tokens generated in {stats.generation_calls} "
                  f"calls, {stats.sampling_seconds:7.1f} s sampling = {stats.tokens_per_second:6.1f} tok/s; "
                  f"{stats.tokens_read} prompt tokens read; scoring {stats.scoring_seconds:.1f} s; "
                  f"{stats.tokens_generated / wall:.1f} tok/s counting scoring ({wall:.1f} s wall)", flush=True)
        beam, bon = totals["beam"][-1], totals["bon"][-1]
        print(f"repeat {r}: beam / best-of-N generated tok/s = {beam.tokens_per_second / bon.tokens_per_second:.2f}",
              flush=True)
    rate = {m: sum(s.tokens_generated for s in ss) / sum(s.sampling_seconds for s in ss) for m, ss in totals.items()}
    per_problem = {m: sum(s.tokens_generated for s in ss) / (len(ss) * len(problems)) for m, ss in totals.items()}
    print(f"mean over {repeats} repeats: beam {rate['beam']:.1f} tok/s ({per_problem['beam']:.0f} tokens/problem), "
          f"best-of-N {rate['bon']:.1f} tok/s ({per_problem['bon']:.0f} tokens/problem); "
          f"beam / best-of-N = {rate['beam'] / rate['bon']:.2f} (target >= 0.8)", flush=True)


if __name__ == "__main__":
    main()
