"""A prmkit reward model as a standard transformers token-classification model, loadable with nothing but
`AutoModelForTokenClassification.from_pretrained(dir)` and servable by vLLM (`--runner pooling`, STEP pooler).

A prmkit checkpoint is a causal LM whose head is the LM-head rows of its class tokens read at the step separator
(`prmkit.models.heads`); nothing outside prmkit knows that. The export is `<Arch>ForTokenClassification` (e.g.
`LlamaForTokenClassification`) with the same decoder weights and `score.weight` = the head as one linear layer
(`Head.linear_head`): for prm/orm/prm3 the class-token rows of the LM head, `num_labels` = 2 or 3, softmax over
them = prmkit's step score p(positive) (index 0); for a `bt` model with `value_head: linear`, the value layer,
`num_labels` = 1, the logit = prmkit's utility U. `score` has no bias (`token_classification_bias: false`, what
vLLM's converted classifier has too) unless the LM head had one.

config.json carries the step format under `prmkit` (kind, prompt template, separator and its id, class tokens),
and a model card `README.md` beside the weights says how to build the inputs, how to read the scores, and the vLLM
command. The input of a trace: `tokenizer(prompt.format(question=q)).input_ids` then, for each step,
`tokenizer(step, add_special_tokens=False).input_ids + [sep_token_id]` (each step on its own, never a joined
string); the score of step i is read at the i-th separator.

    export_hf("runs/prm", "runs/prm_hf")        # = prmkit export-hf --model runs/prm --output runs/prm_hf
"""

from __future__ import annotations

import copy
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from prmkit.data.outputs import OutputPathError, atomic_dir, check_output_path
from prmkit.models.reward import RewardModel

__all__ = ["CARD_NAME", "ExportHFConfig", "export_hf", "prmkit_fields", "token_classification_model",
           "transformers_snippet", "vllm_command"]

CARD_NAME = "README.md"


@dataclass
class ExportHFConfig:
    """`prmkit export-hf`: a `prmkit train` checkpoint -> a standard token-classification model directory."""

    model: str = field(default="", metadata={"help": "checkpoint directory written by `prmkit train` (required)"})
    output: str = field(default="", metadata={"help": "directory to write (required)"})
    overwrite: bool = field(default=False, metadata={"help": "replace a non-empty output directory"})


def prmkit_fields(rm: RewardModel) -> dict[str, Any]:
    """What a reader of the export needs to build inputs and read scores (config.json `prmkit`, the card)."""
    head = rm.target_head
    return {
        "kind": rm.config.kind,
        "prompt": rm.prefix,
        "sep_token": rm.config.sep_token,
        "sep_token_id": rm.sep_id,
        "class_tokens": rm.config.class_tokens,
        "class_token_ids": list(rm.class_ids),
        "labels": list(head.label_names),
        "score": ("logit 0 (the utility U, no activation)" if len(head.label_names) == 1
                  else "softmax over the logits, index 0 (p(positive))"),
        "targets": "every separator" if rm.config.kind != "orm" else "the last separator",
        "aggregation": rm.config.aggregation,
        "step_format": "tokenizer(prompt.format(question=q)).input_ids + sum(tokenizer(step, add_special_tokens="
                       "False).input_ids + [sep_token_id] for step in steps)",
    }


def token_classification_model(rm: RewardModel) -> Any:
    """The `<Arch>ForTokenClassification` of `rm` (decoder weights shared by copy, `score` = the head's linear
    layer); a ValueError when the head is not one linear layer."""
    from transformers import AutoModelForTokenClassification

    causal = rm.model
    linear = rm.target_head.linear_head(causal.get_output_embeddings())
    if linear is None:
        raise ValueError(f"a {rm.config.kind} head with value_head {rm.config.value_head!r} is an MLP (PUM appendix "
                         "C), which no standard transformers head is: train it with --value-head linear to export it")
    weight, bias = linear
    names = rm.target_head.label_names
    config = copy.deepcopy(causal.config)
    arch = type(causal).__name__
    config.architectures = [arch.removesuffix("ForCausalLM") + "ForTokenClassification"]
    config.num_labels = len(names)
    config.id2label = dict(enumerate(names))
    config.label2id = {name: i for i, name in enumerate(names)}
    config.token_classification_bias = bias is not None
    config.classifier_dropout = 0.0
    config.prmkit = prmkit_fields(rm)
    model = AutoModelForTokenClassification.from_config(config, dtype=weight.dtype)
    body = getattr(model, model.base_model_prefix)
    missing, unexpected = body.load_state_dict(causal.get_decoder().state_dict(), strict=False)
    if missing or unexpected:
        raise ValueError(f"the decoder of {arch} does not fit {type(model).__name__}: missing {missing}, "
                         f"unexpected {unexpected}")
    with torch.no_grad():
        model.score.weight.copy_(weight)
        if bias is not None:
            model.score.bias.copy_(bias)
    return model.eval()


def vllm_command(path: str, fields: dict[str, Any]) -> str:
    """The `vllm serve` line of an export: pooling runner, classifier conversion, STEP pooler at the separator."""
    pooler = json.dumps({"pooling_type": "STEP", "step_tag_id": fields["sep_token_id"]})
    return f"vllm serve {path} --runner pooling --convert classify --pooler-config '{pooler}'"


def transformers_snippet(path: str) -> str:
    """Five lines that load the export at `path` with plain transformers and print the step scores of one trace
    (the README's snippet, run by tests/test_readme_example.py)."""
    return "\n".join([
        "import torch; from transformers import AutoModelForTokenClassification, AutoTokenizer",
        f'model, tok = AutoModelForTokenClassification.from_pretrained("{path}"), '
        f'AutoTokenizer.from_pretrained("{path}")',
        'q, steps, p = "Tom has 3 apples and buys 4 more. How many?", ["3 + 4 = 7.", "The answer is 7."], '
        "model.config.prmkit",
        'ids = tok(p["prompt"].format(question=q)).input_ids + sum((tok(s, add_special_tokens=False).input_ids + '
        '[p["sep_token_id"]] for s in steps), [])',
        'print(model(torch.tensor([ids])).logits[0].softmax(-1)[torch.tensor(ids) == p["sep_token_id"], 0].tolist())',
    ])


def _card(fields: dict[str, Any], source: str, output: str, arch: str) -> str:
    sep, sep_id = fields["sep_token"], fields["sep_token_id"]
    single = len(fields["labels"]) == 1
    read = ("logits[0, i, 0] at each separator position i is the prefix utility U(x, r_1..r_i) (Bradley-Terry "
            "scale; vLLM applies a sigmoid unless the request sets `use_activation: false`)"
            if single else "softmax(logits[0, i], -1)[0] at each separator position i is p(step correct)")
    return f"""---
library_name: transformers
pipeline_tag: token-classification
tags: [prmkit, process-reward-model]
---

# prmkit {fields['kind']} reward model ({arch})

Exported by `prmkit export-hf` from the prmkit checkpoint `{source}`. A standard `{arch}`: the decoder of the
checkpoint and `score.weight` = its head ({', '.join(fields['labels'])}); `config.json` holds the step format
under `prmkit`.

## Input format

- prompt: `{json.dumps(fields['prompt'])}` formatted with the question, tokenised with the tokenizer's special
  tokens;
- then each step tokenised **on its own** (`add_special_tokens=False`) followed by the separator `{sep}` (id
  {sep_id}); never join the steps into one string.
- Scores are read at the separators ({fields['targets']}): {read}.
- A trace's score: `{fields['aggregation']}` of its step scores.

## transformers

```python
{transformers_snippet(output)}
```

(for a one-label model read `logits[0, :, 0]` at the separators instead of the softmax.)

## vLLM (not run on vLLM by prmkit's tests: no GPU was available)

```bash
{vllm_command(output, fields)}
```

The STEP pooler returns one row per separator of the prompt; send prmkit's own token ids (built as above) as
the prompt so the steps are tokenised one by one:

```python
import requests
body = {{"model": "{output}", "input": [ids], "task": "token_classify"}}   # ids as built above
r = requests.post("http://localhost:8000/pooling", json=body)
probs = [row[0] for row in r.json()["data"][0]["data"]]   # p(positive) at each separator
```
"""


def export_hf(config: ExportHFConfig | None = None, **settings: Any) -> dict[str, Any]:
    """Write the checkpoint `model` as a standard token-classification model directory `output` (weights,
    tokenizer, config.json with `prmkit`, the model card README.md), whole or not at all. Returns a summary."""
    config = config or ExportHFConfig(**settings)
    if not (config.model and config.output):
        raise ValueError("export-hf needs --model (a prmkit train checkpoint) and --output (a directory)")
    out = check_output_path(config.output, directory=True)
    if out.is_dir() and any(out.iterdir()) and not config.overwrite:
        raise OutputPathError(f"output {out}: not empty; pass --overwrite to replace it")
    rm = RewardModel.from_pretrained(config.model)
    model = token_classification_model(rm)
    fields = model.config.prmkit
    with atomic_dir(config.output) as tmp:
        model.save_pretrained(tmp)
        rm.tokenizer.save_pretrained(tmp)
        (tmp / CARD_NAME).write_text(_card(fields, os.fspath(config.model), os.fspath(config.output),
                                           model.config.architectures[0]),
                                     encoding="utf-8")
    return {"output": os.fspath(Path(config.output)), "architecture": model.config.architectures[0],
            "num_labels": model.config.num_labels, "sep_token_id": fields["sep_token_id"],
            "vllm": vllm_command(os.fspath(config.output), fields)}
