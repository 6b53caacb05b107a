"""`prmkit export`: pools + step labels -> TRL stepwise supervision (`{prompt, completions, labels}`).

    prmkit export --format trl --pools pools.jsonl --labels runs/mcnig.jsonl --output trl.jsonl
    prmkit export --format trl-soft --pools pools.jsonl --labels runs/mcnig.jsonl --output trl_soft.jsonl
    prmkit export --format parquet --pools pools.jsonl --labels runs/mcnig.jsonl --output trl.parquet
"""

from __future__ import annotations

import argparse

from prmkit.cli.common import add_config_arguments, config_from_args
from prmkit.data.join import JoinReport
from prmkit.label.export import ExportConfig, export_labels


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_config_arguments(p, ExportConfig)


def run(args: argparse.Namespace) -> None:
    cfg = config_from_args(ExportConfig, args)
    report = JoinReport()
    n = export_labels(cfg, report)
    print(f"wrote {n} {cfg.format} records to {cfg.output} ({report.line()})")
