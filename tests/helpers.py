"""Test helpers shared by every test package: a tiny model on disk, JSONL files, literal records."""

from __future__ import annotations

import json
from pathlib import Path

WORDS = ("Tom has 3 apples and buys 4 more . How many apples does he have now ? 3 + 4 = 7 so the answer is 7 "
         "wrong step mistake good fine the price is 12 dollars 5 * 6 = 30 ; 10 - 2 = 8 Sam eats one")


def make_tiny_base(directory: Path, seed: int = 0, context: int = 512) -> Path:
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE(unk_token=None))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=300, special_tokens=["<|endoftext|>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator([WORDS] * 20, trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|endoftext|>", pad_token="<|endoftext|>")
    torch.manual_seed(seed)
    config = LlamaConfig(vocab_size=len(fast), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=context,
                         tie_word_embeddings=True)
    LlamaForCausalLM(config).save_pretrained(directory)
    fast.save_pretrained(directory)
    return directory


def write_jsonl(path: Path, records: list[dict]) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return str(path)


def pool_dict(pid: str, question: str, answer: str, traces: list[tuple[list[str], str, bool]]) -> dict:
    """A Pool record as JSON: traces are (steps, answer, correct)."""
    return {"problem": {"id": pid, "question": question, "answer": answer},
            "traces": [{"id": f"{pid}/{k}", "problem_id": pid, "steps": s, "answer": a, "correct": c}
                       for k, (s, a, c) in enumerate(traces)]}


def embedded_tokenizer_or_skip():
    """The embedded SmolLM2 model's tokenizer (for tiny models that must read real prompts); the test is skipped
    when the embedded model is not installed."""
    import pytest
    from transformers import AutoTokenizer

    from prmkit.models.loading import ModelNotFound, resolve_model

    try:
        return AutoTokenizer.from_pretrained(resolve_model("smollm2-135m"))
    except ModelNotFound:
        pytest.skip("embedded tokenizer not installed")


def tiny_training_inputs(tmp_path: Path) -> list[str]:
    """`--pools P --labels L` of 3 problems x 2 two-step traces (the first right), for short `prmkit train` runs."""
    question = "Tom has 3 apples and buys 4 more . How many apples does he have now ?"
    pools, labels = [], []
    for k in range(3):
        pid = f"p{k}"
        traces = [{"id": f"{pid}/{j}", "problem_id": pid, "steps": ["3 + 4 = 7", f"answer {7 + j}"],
                   "answer": str(7 + j), "correct": j == 0} for j in range(2)]
        pools.append({"problem": {"id": pid, "question": question, "answer": "7"}, "traces": traces})
        labels += [{"trace_id": t["id"], "method": "mcnig", "scores": [0.5, 0.5], "labels": [1, int(t["correct"])],
                    "problem_id": pid} for t in traces]
    return ["--pools", write_jsonl(tmp_path / "pools.jsonl", pools),
            "--labels", write_jsonl(tmp_path / "labels.jsonl", labels)]


def make_embedded_tokenizer_llama(directory: Path) -> Path:
    """A 2-layer random Llama with the embedded model's tokenizer and a context that holds the few-shot prompt
    (skipped without the embedded model)."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    tok = embedded_tokenizer_or_skip()
    torch.manual_seed(0)
    cfg = LlamaConfig(vocab_size=len(tok), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                      num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=2048,
                      bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id)
    LlamaForCausalLM(cfg).save_pretrained(directory)
    tok.save_pretrained(directory)
    return directory


QUIET_VARIABLES = ("TQDM_DISABLE", "HF_HUB_DISABLE_PROGRESS_BARS", "TRANSFORMERS_VERBOSITY")


def cli(*args: str, cwd: Path | None = None, check: bool = False):
    """`prmkit ARGS` run by the console script's function (`prmkit.cli.main.main`) in this process: its exit code
    (argparse's exit included), stdout and stderr, as a launch gives them (a traceback is an exception here and fails
    the test). An interpreter start costs ~4 s of torch and transformers imports, more than most cases; the cases
    about the process itself (kill -9, two writers, quiet before the imports, the installed script) launch one.
    `--quiet`'s environment variables and transformers' verbosity are put back afterwards. `check`: a non-zero
    exit raises CalledProcessError."""
    import contextlib
    import io
    import os
    import subprocess

    from transformers.utils import logging as hf_logging

    import label.step_length  # noqa: F401  (registers the test labeler "length")
    from prmkit.cli.main import main

    saved = {k: os.environ.get(k) for k in QUIET_VARIABLES}
    verbosity, bars = hf_logging.get_verbosity(), hf_logging.is_progress_bar_enabled()
    out, err, here = io.StringIO(), io.StringIO(), os.getcwd()
    try:
        if cwd is not None:
            os.chdir(cwd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(args))
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else int(e.code is not None)
    finally:
        os.chdir(here)
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        hf_logging.set_verbosity(verbosity)
        (hf_logging.enable_progress_bar if bars else hf_logging.disable_progress_bar)()
    done = subprocess.CompletedProcess(["prmkit", *args], code, out.getvalue(), err.getvalue())
    if check and code:
        raise subprocess.CalledProcessError(code, done.args, done.stdout, done.stderr)
    return done
