"""`prmkit view`: one self-contained HTML page of pools with their step labels and step scores.

    prmkit view --pools demo --labels runs/demo_mcnig.jsonl --output runs/demo.html
    prmkit view --pools pools.jsonl --labels MCNIG=l_mcnig.jsonl --labels IG=l_ig.jsonl --scores PRM=s.jsonl

Open the page with any browser (it fetches nothing); `#correct=incorrect&labeler=MCNIG&q=apples` preselects filters.
"""

from __future__ import annotations

import argparse
import json

from prmkit.cli.common import add_config_arguments, config_from_args
from prmkit.evaluate.view import write_view
from prmkit.evaluate.view_data import ViewConfig


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_config_arguments(p, ViewConfig)


def run(args: argparse.Namespace) -> None:
    print(json.dumps(write_view(config_from_args(ViewConfig, args))))
