"""`prmkit export-hf`: a `prmkit train` checkpoint -> a standard transformers token-classification model.

    prmkit export-hf --model runs/prm --output runs/prm_hf

Writes `<Arch>ForTokenClassification` weights, the tokenizer, config.json (with the step format under `prmkit`)
and a model card README.md with the transformers snippet and the vLLM command; prints the vLLM command. A `bt`
model with the MLP value head is written with its modeling file (`modeling_prmkit.py`, loaded with
`trust_remote_code=True`), which vLLM cannot serve: the command says so instead.
"""

from __future__ import annotations

import argparse

from prmkit.cli.common import add_config_arguments, config_from_args
from prmkit.models.hf_export import NO_VLLM, ExportHFConfig, export_hf


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_config_arguments(p, ExportHFConfig)


def run(args: argparse.Namespace) -> None:
    result = export_hf(config_from_args(ExportHFConfig, args))
    print(f"wrote {result['architecture']} ({result['num_labels']} labels, separator id {result['sep_token_id']}) "
          f"to {result['output']}")
    if result["trust_remote_code"]:
        print("load it with AutoModelForTokenClassification.from_pretrained(..., trust_remote_code=True) (custom "
              f"code: modeling_prmkit.py). {NO_VLLM}")
    else:
        print(f"serve it: {result['vllm']}")
