"""`prmkit evaluate bok`: best-of-K table (+ rank robustness) from score files, and an accuracy-vs-K plot.
`prmkit evaluate processbench`: first-error identification (error acc, correct acc, F1) on a step-level benchmark.

    prmkit evaluate bok --scores PRM-MCNIG=runs/s_mcnig.jsonl --scores ORM=runs/s_orm.jsonl \\
        --ks 1,2,4 --plot runs/bok.png --output runs/bok.json
    prmkit evaluate processbench --benchmark runs/corrupt/benchmark.jsonl --scores MCNIG=runs/mcnig.jsonl \\
        --choose-on 0:100 --report-on 100:150 --output runs/processbench.json
"""

from __future__ import annotations

import argparse
import json

import prmkit.rewards  # noqa: F401  (registers the pspo_wrs aggregation)
from prmkit.data.outputs import atomic_path, check_output_path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("what", choices=list(WHAT), help="bok: best-of-K; processbench: first-error identification")
    parser.add_argument("--scores", action="append", required=True,
                        help="NAME=PATH of a `prmkit score` output (repeat); PATH alone names it by the file; "
                             "processbench also takes `prmkit label` StepLabels files")
    parser.add_argument("--benchmark", help="processbench: step-level benchmark file (e.g. `prmkit data corrupt`)")
    parser.add_argument("--benchmark-format", default="processbench",
                        help="processbench: processbench | prm800k | math-shepherd")
    parser.add_argument("--choose-on", default="0:100", help="processbench: problems whose F1 chooses tau")
    parser.add_argument("--report-on", default="100:", help="processbench: problems reported at that tau")
    parser.add_argument("--ks", default="", help="comma list of K (default: 1, 2, 4, ... up to the pool size)")
    parser.add_argument("--problems-range", help="problems by order in the score files, e.g. 0:160")
    parser.add_argument("--no-weighted", action="store_true", help="leave out reward-weighted majority votes")
    parser.add_argument("--max-subsets", type=int, default=256, help="K-subsets per pool (all when fewer)")
    parser.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples for the 95%% interval")
    parser.add_argument("--aggregation", help="re-aggregate the stored step scores (prod, min, mean, last, geomean, "
                                              "pspo_wrs) instead of each file's `score`")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--plot", help="write the accuracy-vs-K PNG here")
    parser.add_argument("--output", help="write the report as JSON here")


def _files(items: list[str]) -> dict[str, str]:
    files = {}
    for item in items:
        name, sep, path = item.partition("=")
        files[name if sep else item.rsplit("/", 1)[-1].removesuffix(".jsonl")] = path if sep else item
    return files


def _write(path: str | None, report: dict) -> None:
    if path:
        with atomic_path(path) as tmp:
            tmp.write_text(json.dumps(report, indent=2), encoding="utf-8")


def run(args: argparse.Namespace) -> int:
    for path, what in ((args.output, "output"), (getattr(args, "plot", None), "plot")):
        if path:
            check_output_path(path, what=what)
    return WHAT[args.what](args)


def run_processbench(args: argparse.Namespace) -> int:
    from prmkit.data.steplevel import read_step_records
    from prmkit.evaluate.processbench import format_processbench, processbench_report
    from prmkit.train.data import parse_range

    if not args.benchmark:
        raise ValueError("processbench needs --benchmark FILE")
    records = read_step_records(args.benchmark, args.benchmark_format)
    report = processbench_report(records, _files(args.scores), parse_range(args.choose_on),
                                 parse_range(args.report_on))
    report |= {"benchmark": args.benchmark, "choose_on": args.choose_on, "report_on": args.report_on}
    print(f"first-error identification (ProcessBench protocol): tau chosen on problems {args.choose_on} "
          f"({report['choose_records']} records), reported on {args.report_on} ({report['report_records']} records), %")
    print(format_processbench(report))
    _write(args.output, report)
    return 0


def run_bok(args: argparse.Namespace) -> int:
    from prmkit.evaluate.plot import plot_bok
    from prmkit.evaluate.report import bok_report, format_table, read_scores
    from prmkit.train.data import parse_range

    files = _files(args.scores)
    if args.ks:
        ks = [int(k) for k in args.ks.split(",")]
    else:
        size = min(len(recs) for recs in read_scores(next(iter(files.values()))).values())
        ks = [2**i for i in range(size.bit_length()) if 2**i <= size]
    report = bok_report(files, ks, not args.no_weighted, args.max_subsets, args.bootstrap, args.seed,
                        parse_range(args.problems_range), args.aggregation)
    print(f"best-of-K over {report['problems']} problems (mean [95% bootstrap interval], %)")
    print(format_table(report))
    _write(args.output, report)
    if args.plot:
        plot_bok(report["rows"], args.plot, f"Best-of-K ({report['problems']} problems)")
    return 0


WHAT = {"bok": run_bok, "processbench": run_processbench}
