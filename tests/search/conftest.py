"""A tiny step-writing policy and a step scorer: real implementations small enough to reason about.

`step_policy_dir`: a 2-layer Llama (the embedded tokenizer) whose layers add nothing (zero output projections), so
the next token depends on the current one only, through hand-set embedding and LM-head rows (a bigram chain):
    words " cat"/" dog"/" sun" -> " [" 0.5 (then "STEP", "]": the step delimiter), another word 0.3, " $" 0.2;
    " $" -> "7" -> "$" -> end of sequence (the answer $7$); any other token -> a word.
So samples read like " cat dog [STEP]" (one step) or " sun $7$" (a final step with the answer 7).
"""

from __future__ import annotations

import math

import pytest
import torch

from helpers import embedded_tokenizer_or_skip
from prmkit.models import StepScorer

torch.set_num_threads(1)

WORDS = {" cat": 2644, " dog": 2767, " sun": 2388}
BRACKET, STEP_TOK, CLOSE, DOLLAR_OPEN, SEVEN, DOLLAR = 933, 43212, 77, 1885, 39, 20


def _transitions(eos: int) -> dict[int, dict[int, float]]:
    """current token (None: any other) -> {next token: probability}."""
    words = {t: 1 / 3 for t in WORDS.values()}
    after_word = {BRACKET: 0.5, DOLLAR_OPEN: 0.2, **{t: 0.1 for t in WORDS.values()}}
    table = {t: after_word for t in WORDS.values()}
    table.update({BRACKET: {STEP_TOK: 1.0}, STEP_TOK: {CLOSE: 1.0}, CLOSE: words,
                  DOLLAR_OPEN: {SEVEN: 1.0}, SEVEN: {DOLLAR: 1.0}, DOLLAR: {eos: 1.0}, None: words})
    return table


@pytest.fixture(scope="session")
def step_policy_dir(tmp_path_factory):
    from transformers import LlamaConfig, LlamaForCausalLM

    tok = embedded_tokenizer_or_skip()
    table = _transitions(tok.eos_token_id)
    rows = [None, *(t for t in table if t is not None)]  # hidden dimension i <- the i-th current-token class
    hidden = 32
    cfg = LlamaConfig(vocab_size=len(tok), hidden_size=hidden, intermediate_size=64, num_hidden_layers=2,
                      num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=2048,
                      bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id)
    model = LlamaForCausalLM(cfg)
    with torch.no_grad():
        for layer in model.model.layers:
            layer.self_attn.o_proj.weight.zero_()
            layer.mlp.down_proj.weight.zero_()
        emb, head = model.model.embed_tokens.weight, model.lm_head.weight
        emb.zero_()
        emb[:, 0] = 1.0  # class 0: any other token
        head.zero_()
        scale = math.sqrt(hidden)  # RMSNorm turns a one-hot embedding into sqrt(hidden) at its dimension
        for i, current in enumerate(rows):
            if current is not None:
                emb[current].zero_()
                emb[current, i] = 1.0
            for nxt, p in table[current].items():
                head[nxt, i] = (20.0 + math.log(p)) / scale  # every other token stays at logit 0: e^-20 away
    path = tmp_path_factory.mktemp("step-policy")
    model.save_pretrained(path)
    tok.save_pretrained(path)
    return str(path)


class ShortSteps(StepScorer):
    """A `StepScorer` that prefers short steps: each step scores 1 / (1 + its length in characters)."""

    def __init__(self) -> None:
        self.calls = 0

    def score_steps(self, question: str, step_lists: list[list[str]]) -> list[list[float]]:
        self.calls += 1
        return [[1 / (1 + len(s)) for s in steps] for steps in step_lists]


@pytest.fixture
def short_steps() -> ShortSteps:
    return ShortSteps()
