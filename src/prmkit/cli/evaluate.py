"""`prmkit evaluate bok`: best-of-K table (+ rank robustness) from score files, and an accuracy-vs-K plot.
`prmkit evaluate processbench`: first-error identification (error acc, correct acc, F1) on a step-level benchmark.

    prmkit evaluate bok --scores PRM-MCNIG=runs/s_mcnig.jsonl --scores ORM=runs/s_orm.jsonl \\
        --ks 1,2,4 --plot runs/bok.png --output runs/bok.json
    prmkit evaluate processbench --benchmark runs/corrupt/benchmark.jsonl --scores MCNIG=runs/mcnig.jsonl \\
        --choose-on 0:100 --report-on 100:150 --output runs/processbench.json
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from prmkit.cli.common import add_config_arguments, config_from_args
from prmkit.evaluate.processbench import format_processbench
from prmkit.evaluate.report import format_table
from prmkit.evaluate.run import BokConfig, ProcessBenchConfig, best_of_k, processbench


def _print_processbench(report: dict[str, Any], cfg: ProcessBenchConfig) -> None:
    print(f"first-error identification (ProcessBench protocol): tau chosen on problems {cfg.choose_on} "
          f"({report['choose_records']} records), reported on {cfg.report_on} ({report['report_records']} records), %")
    print(format_processbench(report))


# name -> (settings dataclass, the evaluation, its printer, one line of help); the names are also in
# prmkit.cli.main.NAMES (this module imports torch; tests/cli/test_main.py checks that the two agree)
WHAT: dict[str, tuple[type, Callable[[Any], dict[str, Any]], Callable[[dict[str, Any], Any], None], str]] = {
    "bok": (BokConfig, best_of_k, lambda report, _: print(format_table(report)),  # its first line: what cells are
            "best-of-K table (+ rank robustness) from score files, and an accuracy-vs-K plot"),
    "processbench": (ProcessBenchConfig, processbench, _print_processbench,
                     "first-error identification (error acc, correct acc, F1) on a step-level benchmark"),
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="what", required=True, metavar="COMMAND")
    for name, (cls, _, _, help_text) in WHAT.items():
        add_config_arguments(sub.add_parser(name, help=help_text, description=help_text), cls)


def run(args: argparse.Namespace) -> None:
    cls, command, show, _ = WHAT[args.what]
    cfg = config_from_args(cls, args)
    show(command(cfg), cfg)
