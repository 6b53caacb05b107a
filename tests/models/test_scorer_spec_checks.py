"""Scorer specs refused before transformers sees them, or before a score is drawn from weights that are not there:
a path that is no local model directory (prmkit never looks a name up on a hub), an unknown kind, an option its kind
does not take, a causal LM read as a token classifier (a head transformers would draw at random), a tokenizer
larger than the model's embeddings."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from prmkit.models.scorer_spec import load_scorer_spec

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


@pytest.mark.parametrize("kind", ["token-classification", "step-tag"])
def test_a_path_that_is_no_model_directory_is_refused_before_transformers_sees_it(kind, tmp_path):
    (tmp_path / "pools.jsonl").write_text("{}\n")
    (tmp_path / "empty").mkdir()
    start = time.perf_counter()
    with pytest.raises(ValueError, match=rf"^{kind}: no such directory nope/prm \(prmkit loads local models only"):
        load_scorer_spec(f"{kind}:nope/prm")  # a hub id's shape: never looked up
    with pytest.raises(ValueError, match=rf"^{kind}: .*pools.jsonl is a file, not a model directory \(a data file"):
        load_scorer_spec(f"{kind}:{tmp_path / 'pools.jsonl'}")
    with pytest.raises(ValueError, match=rf"^{kind}: .*empty holds no config.json"):
        load_scorer_spec(f"{kind}:{tmp_path / 'empty'}")
    assert time.perf_counter() - start < 5


def test_an_unknown_kind_lists_the_kinds_and_a_url_is_pointed_at_openai_pooling():
    with pytest.raises(ValueError, match=r"unknown scorer kind 'foo'; choose from reward-model, token-classification, "
                                         r"step-tag, openai-pooling"):
        load_scorer_spec("foo:runs/prm")
    with pytest.raises(ValueError, match=r"unknown scorer kind 'http' \(a server's URL is the kind openai-pooling: "
                                         r"openai-pooling:http://127.0.0.1:8000\)"):
        load_scorer_spec("http://127.0.0.1:8000")


def test_an_option_the_kind_does_not_take_is_refused_naming_those_it_takes():
    with pytest.raises(ValueError, match=r"unknown option\(s\) timout; it takes .*connect_timeout, timeout, "
                                         r"max_reply_mb, retries"):
        load_scorer_spec("openai-pooling:http://127.0.0.1:9,sep_id=5,timout=5")
    with pytest.raises(ValueError, match=r"connect_timeout, timeout and max_reply_mb must be > 0"):
        load_scorer_spec("openai-pooling:http://127.0.0.1:9,sep_id=5,timeout=0")


def test_a_causal_lm_read_as_a_token_classifier_is_refused_not_scored_at_random(tiny_base):
    with pytest.raises(ValueError, match=r"has no weights for score.bias, score.weight; transformers would initialise "
                                         r"them at random.*the kind step-tag"):
        load_scorer_spec(f"token-classification:{tiny_base},sep_id=5")


def test_a_token_classifier_read_as_step_tag_without_its_lm_head_is_refused(tiny_base, tmp_path):
    from transformers import AutoConfig, AutoTokenizer, LlamaForTokenClassification

    config = AutoConfig.from_pretrained(tiny_base)
    config.tie_word_embeddings, config.num_labels = False, 2  # no LM head to borrow from the embeddings
    LlamaForTokenClassification(config).save_pretrained(tmp_path / "tc")
    AutoTokenizer.from_pretrained(tiny_base).save_pretrained(tmp_path / "tc")
    with pytest.raises(ValueError, match=r"^step-tag: .* has no weights for lm_head.weight;.*give a causal LM"):
        load_scorer_spec(f"step-tag:{tmp_path / 'tc'}")


def test_a_tokenizer_larger_than_the_model_is_refused(tiny_base, tmp_path):
    import shutil

    from transformers import AutoTokenizer

    path = Path(shutil.copytree(tiny_base, tmp_path / "mixed"))
    tok = AutoTokenizer.from_pretrained(path)
    rows = len(tok)
    tok.add_tokens([f"<new_{k}>" for k in range(40)])
    tok.save_pretrained(path)
    with pytest.raises(ValueError, match=rf"the tokenizer of .*mixed has {rows + 40} tokens, the model's embeddings "
                                         rf"{rows} rows: they are not one model's"):
        load_scorer_spec(f"step-tag:{path}")
