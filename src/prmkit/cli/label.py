"""`prmkit label`: per-step IG / MCNIG labels for a pool file (see prmkit.label.runner)."""

from __future__ import annotations

import argparse
import json
from dataclasses import fields

from prmkit.cli.common import add_config_arguments, config_from_args
from prmkit.data.formats import read_pools
from prmkit.label.runner import LabelConfig, label_pools


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--input", required=True, help="pool file: prmkit pools, GSM8K, GSM8K candidates or TRL")
    p.add_argument("--output", required=True,
                   help="StepLabels JSONL (append-only; a re-run resumes); with several methods use {method}")
    p.add_argument("--format", default="auto", help="input format (default: detected from the first line)")
    p.add_argument("--tau-from", help="take tau from another labeled file instead of choosing it here")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    add_config_arguments(p, LabelConfig)


def run(args: argparse.Namespace) -> int:
    cfg = config_from_args(LabelConfig, args)
    if args.tau_from:
        with open(args.tau_from, encoding="utf-8") as fh:
            cfg.tau = json.loads(fh.readline()).get("threshold")
        if cfg.tau is None:
            raise ValueError(f"--tau-from {args.tau_from}: its first record has no threshold (label it to the end)")
    methods = [m.strip() for m in cfg.method.split(",") if m.strip()]
    if len(methods) > 1 and "{method}" not in args.output:
        raise ValueError("with several methods, --output must contain {method}")
    outputs = {m: args.output.format(method=m) for m in methods}
    reports = label_pools(read_pools(args.input, args.format), cfg, outputs, progress=not args.quiet)
    for method, report in reports.items():
        summary = {"method": method, "output": outputs[method]}
        summary |= {f.name: getattr(report, f.name) for f in fields(report)}
        secs = report.seconds or float("nan")
        summary["tokens_per_second"] = report.tokens_processed / secs
        summary["paper_tokens_per_second"] = report.paper_tokens / secs
        print(json.dumps(summary, indent=2))
    return 0
