"""`prmkit train prm|orm|prm3|bt|pum`: train a reward model on step labels (validator labels for orm, PUM preference
pairs for bt, alias pum).

    prmkit train prm --pools ../shared/data/gsm8k/candidates_dev.jsonl --labels runs/labels_mcnig.jsonl \\
        --problems-range 0:500 --output runs/prm_mcnig
    prmkit train orm --pools pools.jsonl --output runs/orm
    prmkit train prm --labels stepwise_trl.jsonl --output runs/prm   # TRL {prompt, completions, labels}
    prmkit train pum --pairs runs/pum/pairs.jsonl --output runs/pum_model  # PrefixPair JSONL (prmkit pum)

The kinds are the heads of `prmkit.models.heads.HEADS`. The flags given are handed as they are to
`prmkit.train.run.train` (the call `prmkit.api.train(...)` makes from Python), which says what they do: with no
`--config`, the machine's recipe is the config, and each flag overrides its one field (said on stderr:
"--max-steps 3 overrides recipes/cpu.yaml's max_steps"). `--resume` continues from the last
`<output>/checkpoint-N` of the same run; a non-empty output that is not one is refused unless `--overwrite`.
Several GPUs: `accelerate launch -m prmkit.cli.main train ...` (the same flags).
"""

from __future__ import annotations

import argparse

from prmkit.cli.common import add_config_arguments, given_settings
from prmkit.models.heads import HEADS
from prmkit.train.run import KIND_ALIASES, SETTINGS


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("kind", choices=[*HEADS, *KIND_ALIASES],
                        help=" | ".join(f"{k}: {h.help}" for k, h in HEADS.items())
                        + "".join(f" | {alias}: {kind}" for alias, kind in KIND_ALIASES.items()))
    parser.add_argument("--output", required=True, help="checkpoint directory to write")
    add_config_arguments(parser, *SETTINGS, skip=("kind",))


def run(args: argparse.Namespace) -> None:
    from prmkit.train.run import train

    settings = given_settings(args)
    train(args.kind, args.output, settings, args.config, log=lambda msg: print(msg, flush=True))
