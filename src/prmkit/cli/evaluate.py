"""`prmkit evaluate bok`: best-of-K table (+ rank robustness) from score files, and an accuracy-vs-K plot.

    prmkit evaluate bok --scores PRM-MCNIG=runs/s_mcnig.jsonl --scores ORM=runs/s_orm.jsonl \\
        --ks 1,2,4 --plot runs/bok.png --output runs/bok.json
"""

from __future__ import annotations

import argparse
import json

import prmkit.rewards  # noqa: F401  (registers the pspo_wrs aggregation)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("what", choices=["bok"], help="bok: best-of-K")
    parser.add_argument("--scores", action="append", required=True,
                        help="NAME=PATH of a `prmkit score` output (repeat); PATH alone names it by the file")
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


def run(args: argparse.Namespace) -> int:
    from prmkit.evaluate.plot import plot_bok
    from prmkit.evaluate.report import bok_report, format_table, read_scores
    from prmkit.train.data import parse_range

    files = {}
    for item in args.scores:
        name, sep, path = item.partition("=")
        files[name if sep else item.rsplit("/", 1)[-1].removesuffix(".jsonl")] = path if sep else item
    if args.ks:
        ks = [int(k) for k in args.ks.split(",")]
    else:
        size = min(len(recs) for recs in read_scores(next(iter(files.values()))).values())
        ks = [2**i for i in range(size.bit_length()) if 2**i <= size]
    report = bok_report(files, ks, not args.no_weighted, args.max_subsets, args.bootstrap, args.seed,
                        parse_range(args.problems_range), args.aggregation)
    print(f"best-of-K over {report['problems']} problems (mean [95% bootstrap interval], %)")
    print(format_table(report))
    if args.output:
        with open(args.output, "w", encoding="utf-8") as fh:
            json.dump(report, fh, indent=2)
    if args.plot:
        plot_bok(report["rows"], args.plot, f"Best-of-K ({report['problems']} problems)")
    return 0
