"""`prmkit label`: per-step labels for a pool file (IG, MCNIG, ...: the methods of prmkit.label.registry.LABELERS).

    prmkit label --method ig,mcnig --input demo --output 'runs/{method}.jsonl'

Flags: the recipe's LabelConfig and every registered labeler's settings (e.g. InformationConfig).
"""

from __future__ import annotations

import argparse
import json

from prmkit.cli.common import DEMO_INPUT, add_config_arguments, configs_from_args
from prmkit.data.formats import read_pools
from prmkit.label import LABELERS, LabelConfig, label_pools, labeler_configs

METHOD_HELP = "labeling method(s), comma-separated, of: {}; methods of one labeler share its work per problem"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--input", required=True,
                   help="pool file: prmkit pools, GSM8K, GSM8K candidates or TRL" + DEMO_INPUT)
    p.add_argument("--output", required=True,
                   help="StepLabels JSONL (append-only; a re-run resumes); with several methods use {method}")
    p.add_argument("--format", default="auto", help="input format (default: detected from the first line)")
    p.add_argument("--allow-duplicates", action="store_true",
                   help="keep the first of repeated problem ids instead of refusing the input")
    add_config_arguments(p, LabelConfig, *labeler_configs(), helps={"method": METHOD_HELP.format(", ".join(LABELERS))})


def run(args: argparse.Namespace) -> None:
    config, *settings = configs_from_args(args)  # LabelConfig, then each labeler's (add_arguments' order)
    pools = read_pools(args.input, args.format, args.allow_duplicates)
    reports = label_pools(pools, config, args.output, settings, progress=not args.quiet)
    print("\n".join(json.dumps(report.to_dict(), indent=2) for report in reports.values()))
