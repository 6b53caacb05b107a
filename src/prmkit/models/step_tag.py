"""`step-tag`: a causal LM PRM scored by a "good" against a "bad" next token at each step tag (Math-Shepherd's PRM,
Wang et al., 2024, sec 3.3); options in docs/reward_models.md."""

import json
from pathlib import Path
from typing import Any

from prmkit.models.step_inputs import LocalStepScorer, check_options, layout_for, load_local, local_dir
from prmkit.models.stepwise import StepLayout, encode_text

__all__ = ["DEFAULTS", "OPTIONS", "STEP_TAG_FILE", "StepTagScorer", "load"]

STEP_TAG_FILE = "prmkit_step_tag.json"
DEFAULTS = {"tag": "ки", "good": "+", "bad": "-", "prompt": "{question} "}  # Math-Shepherd's PRM
OPTIONS = ("tag", "good", "bad", "tag_id", "good_id", "bad_id", "prompt", "system", "dtype", "max_tokens",
           "max_batch")


class StepTagScorer(LocalStepScorer):
    """Step score = softmax over the [good, bad] logits of the next token at the step's tag, the LM head applied at
    the tags only. Example: l_good = 2, l_bad = 0 -> 0.881."""

    def __init__(self, model: Any, tokenizer: Any, layout: StepLayout, good_id: int, bad_id: int, **batching: int):
        super().__init__(model, tokenizer, layout, **batching)
        self.pair = [good_id, bad_id]

    def values(self, input_ids: Any, attention_mask: Any, positions: Any) -> list[float]:
        hidden = self.hidden(input_ids, attention_mask)[positions[:, 0], positions[:, 1]]  # (P, H)
        logits = self.model.get_output_embeddings()(hidden).float()  # (P, V)
        return logits[:, self.pair].softmax(-1)[:, 0].tolist()  # (P,)


def _token_id(tokenizer: Any, settings: dict[str, Any], name: str) -> int:
    if settings.get(f"{name}_id") is not None:
        return int(settings[f"{name}_id"])
    if not (ids := encode_text(tokenizer, str(settings[name]))):
        raise ValueError(f"step-tag: {name} {settings[name]!r} encodes to no token")
    return ids[-1]


def load(path: str, **options: Any) -> StepTagScorer:
    """The scorer of the causal LM directory `path`; options also from `prmkit_step_tag.json` (the spec's win)."""
    check_options("step-tag", options, OPTIONS)
    path = local_dir("step-tag", path)  # before torch and transformers are imported: at once
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    file = Path(path) / STEP_TAG_FILE
    beside = json.loads(file.read_text(encoding="utf-8")) if file.is_file() else {}
    if not isinstance(beside, dict):
        raise ValueError(f"{file}: a JSON object is needed")
    check_options(f"step-tag ({STEP_TAG_FILE})", beside, OPTIONS)
    settings = DEFAULTS | beside | options
    for name in ("tag", "good", "bad"):  # a token given as an option wins over an id from the file
        if name in options and f"{name}_id" not in options:
            settings.pop(f"{name}_id", None)
    tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
    model = load_local(AutoModelForCausalLM, "step-tag", path, tokenizer, "step-tag reads the language-model head's "
                       "good/bad logits: give a causal LM (a token-classification model is the kind "
                       "token-classification)", dtype=getattr(torch, settings.get("dtype", "float32")))
    tag, good, bad = (_token_id(tokenizer, settings, n) for n in ("tag", "good", "bad"))
    if good == bad:
        raise ValueError(f"step-tag: the good and bad tokens are one id ({good})")
    layout = layout_for(tokenizer, settings["prompt"], [tag], settings.get("system"))
    batching = {k: int(settings[k]) for k in ("max_tokens", "max_batch") if k in settings}
    return StepTagScorer(model, tokenizer, layout, good, bad, **batching)
