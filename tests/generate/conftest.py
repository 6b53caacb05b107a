from __future__ import annotations

import pytest
import torch

from helpers import embedded_tokenizer_or_skip

# the suite shares a small machine: one intra-op thread avoids spin-waiting when cores are oversubscribed
torch.set_num_threads(1)


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory):
    """A 2-layer random Llama with the embedded model's tokenizer, saved as a local HF dir (no download)."""
    from transformers import LlamaConfig, LlamaForCausalLM

    tok = embedded_tokenizer_or_skip()
    torch.manual_seed(0)
    cfg = LlamaConfig(
        vocab_size=len(tok),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=2048,
        bos_token_id=tok.bos_token_id,
        eos_token_id=tok.eos_token_id,
    )
    path = tmp_path_factory.mktemp("tiny-llama")
    LlamaForCausalLM(cfg).save_pretrained(path)
    tok.save_pretrained(path)
    return str(path)
