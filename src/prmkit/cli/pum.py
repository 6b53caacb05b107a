"""`prmkit pum`: PUM preference data for a pool file: prefixes, student rollouts, gains, pairs, diagnostics.

    prmkit pum --input demo --output-dir runs/pum_demo --students ct2:smollm2-135m ct2:gemma3-270m
    prmkit pum --input ../shared/data/gsm8k/candidates_dev.jsonl --problems-range 0:500 --output-dir runs/pum \\
        --backend ct2 --max-new-tokens 128
    prmkit pum --input runs/bench/pools.jsonl --sources policy --output-dir runs/pum_policy   # the policy's samples
    prmkit pum --input runs/bench/pools.jsonl --sources policy --output-dir runs/pum_policy --solve-rates \\
        --students ct2:smollm2-135m 'runs/sft/s_gemma#generate_math_0shot'   # each student's solve rate per level

Writes into `--output-dir` (see `prmkit.label.pum.pipeline`) the students' rollouts (append-only: a re-run resumes),
prefixes, `pairs.jsonl` (the input of `prmkit train pum`), report.json and figures; with `--solve-rates`, instead,
each student's solve rate per level, printed and in `solve_rates.json`. A student is `[BACKEND:]MODEL[@T][#TEMPLATE]`
(`prmkit.label.pum.students`: a template of its own, else `--template`).
"""

from __future__ import annotations

import argparse
import json

from prmkit.cli.common import add_config_arguments, config_from_args
from prmkit.label.pum import PumConfig


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--input", required=True, help="pool file (prmkit pools, GSM8K candidates, ...) or `demo`")
    p.add_argument("--output-dir", required=True, help="folder of the rollouts, pairs, report and figures")
    p.add_argument("--problems-range", help="problems by index in --input, e.g. 0:500")
    p.add_argument("--allow-duplicates", action="store_true",
                   help="keep the first of repeated problem ids instead of refusing the input")
    p.add_argument("--sources", nargs="+", metavar="PREFIX",
                   help="keep only the traces whose source starts with one of these (e.g. `policy`: a bench's "
                        "policy samples, not its constructed traces); default: all")
    add_config_arguments(p, PumConfig)


def run(args: argparse.Namespace) -> None:
    from prmkit.data.formats import read_chosen_pools
    from prmkit.label.pum import format_solve_rates, label_pum

    config = config_from_args(PumConfig, args)  # a bad --config is reported before the input is read
    pools = read_chosen_pools(args.input, args.problems_range, args.sources, args.allow_duplicates)
    report = label_pum(pools, config, args.output_dir, progress=not args.quiet, log=lambda msg: print(msg, flush=True))
    if config.solve_rates:
        print(format_solve_rates(report))
    else:
        print(json.dumps({k: v for k, v in report.items() if k not in ("config", "gain_by_position")}, indent=2))
