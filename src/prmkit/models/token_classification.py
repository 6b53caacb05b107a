"""`token-classification`: any `AutoModelForTokenClassification` PRM read at a separator token (a `prmkit
export-hf` output, Qwen2.5-Math-PRM); options in docs/reward_models.md."""

from typing import Any

from prmkit.models.step_inputs import LocalStepScorer, check_options, load_local, local_dir, options_layout
from prmkit.models.stepwise import StepLayout

__all__ = ["NO_HEAD", "OPTIONS", "TokenClassificationScorer", "load"]

NO_HEAD = ("A token-classification model holds its classification head; a causal LM scored at a good/bad token is "
           "the kind step-tag, a `prmkit train` checkpoint the kind reward-model.")
OPTIONS = ("sep", "sep_id", "positive", "prompt", "system", "trust_remote_code", "dtype", "max_tokens", "max_batch")


class TokenClassificationScorer(LocalStepScorer):
    """Step score = softmax(logits at the separator)[positive] (a one-label head: the logit itself)."""

    def __init__(self, model: Any, tokenizer: Any, layout: StepLayout, positive: int, last_only: bool = False,
                 **batching: int):
        super().__init__(model, tokenizer, layout, **batching)
        self.positive, self.last_only = positive, last_only

    def encode(self, question: str, steps: list[str]) -> tuple[list[int], list[int]]:
        ids, positions = super().encode(question, steps)
        return ids, positions[-1:] if self.last_only else positions

    def values(self, input_ids: Any, attention_mask: Any, positions: Any) -> list[float]:
        out = self.model(input_ids=input_ids, attention_mask=attention_mask)
        logits = (out.logits if hasattr(out, "logits") else out[0])[positions[:, 0], positions[:, 1]].float()  # (P, C)
        return (logits[:, 0] if logits.shape[-1] == 1 else logits.softmax(-1)[:, self.positive]).tolist()


def _model_class(config: Any, trust_remote_code: bool) -> Any:
    """AutoModelForTokenClassification, or AutoModel for remote code that registers only it (Qwen's PRM)."""
    from transformers import AutoModel, AutoModelForTokenClassification

    auto = getattr(config, "auto_map", None) or {}
    if trust_remote_code and "AutoModel" in auto and "AutoModelForTokenClassification" not in auto:
        return AutoModel
    return AutoModelForTokenClassification


def load(path: str, **options: Any) -> TokenClassificationScorer:
    """The scorer of the token-classification model directory `path`; an orm export is read at its last separator."""
    check_options("token-classification", options, OPTIONS)
    path = local_dir("token-classification", path)  # before torch and transformers are imported: at once
    import torch
    from transformers import AutoConfig, AutoTokenizer

    remote = bool(options.get("trust_remote_code", False))
    config = AutoConfig.from_pretrained(path, trust_remote_code=remote, local_files_only=True)
    fields = getattr(config, "prmkit", None) or {}
    tokenizer = AutoTokenizer.from_pretrained(path, trust_remote_code=remote, local_files_only=True)
    model = load_local(_model_class(config, remote), "token-classification", path, tokenizer, NO_HEAD,
                       trust_remote_code=remote, dtype=getattr(torch, options.get("dtype", "float32")))
    num_labels = int(getattr(model.config, "num_labels", 2))
    positive = int(options.get("positive", 0 if fields else num_labels - 1))
    if not 0 <= positive < num_labels:
        raise ValueError(f"positive class {positive}: the head has {num_labels} classes")
    layout = options_layout(tokenizer, options, fields)
    batching = {k: int(options[k]) for k in ("max_tokens", "max_batch") if k in options}
    return TokenClassificationScorer(model, tokenizer, layout, positive,
                                     last_only=fields.get("targets") == "the last separator", **batching)
