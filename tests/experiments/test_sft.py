"""`prmkit sft`: the warm start's data (right by the bench's checker, rendered as the bench prompts the policy,
disjoint from the bench's problems), a short TRL run on the tiny model that leaves a loadable policy and continues
after a crash without redoing its steps, bad input, and `prmkit bench --policy` sampling from the warm start."""

from __future__ import annotations

import json
import re

import pytest

from prmkit.cli.main import main
from prmkit.data.bench import bench_problems
from prmkit.data.bench_checker import check_steps
from prmkit.data.manifest import read_manifest
from prmkit.domains import math_answer, parse_completion
from prmkit.experiments.bench import BenchConfig, run_bench
from prmkit.experiments.sft import SFTRunConfig, run_sft
from prmkit.experiments.sft_data import held_out_questions, sft_rows, warm_start_problems
from prmkit.generate.prompts import build_prompt

CHATML = ("{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
          "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")


@pytest.fixture(scope="module")
def chat_base(tmp_path_factory):
    """The tiny base with a ChatML template (the embedded policy's kind of prompt) and a context for few-shot."""
    from transformers import AutoTokenizer

    from helpers import make_tiny_base

    path = make_tiny_base(tmp_path_factory.mktemp("chat_base"), context=4096)
    tok = AutoTokenizer.from_pretrained(path)
    tok.chat_template = CHATML
    tok.save_pretrained(path)
    return str(path)


def test_rows_are_right_by_the_checker_and_prompted_as_the_bench_samples(chat_base):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from prmkit.generate.backends.hf import TransformersBackend

    tok = AutoTokenizer.from_pretrained(chat_base)
    backend = TransformersBackend((AutoModelForCausalLM.from_pretrained(chat_base), tok))
    problems = warm_start_problems(48, seed=1, levels=tuple(range(1, 9)), size="medium")
    rows = sft_rows(problems, tok)
    for p, row in zip(problems, rows, strict=True):
        assert row["prompt"] == backend.format_prompt(build_prompt(p))  # what generate_pools has the backend send
        assert row["prompt"].endswith("<|im_start|>assistant\n") and not row["completion"].startswith(" ")
        steps, answer = parse_completion("math", row["completion"])
        assert len(steps) == len(p.meta["graph"]) + 1
        assert [v.verdict for v in check_steps(p, steps)] == ["right"] * len(steps), row["completion"]
        assert answer == math_answer(row["completion"]) == p.answer
    raw = sft_rows(problems[:2], None)  # no chat template: the few-shot text, which ends on "Answer:" and a newline
    assert raw[0]["prompt"] == build_prompt(problems[0]) and raw[0]["prompt"].endswith("Answer:\n")
    assert not raw[0]["completion"].startswith(" ")  # as a rollout's partial answer follows it
    (spaced,) = sft_rows(problems[:1], None, template="Q: {question} A:")  # a prompt ending on no whitespace
    assert spaced["completion"] == " " + raw[0]["completion"]


def test_a_zero_shot_template_prompts_the_question_alone_in_the_chat_turns(chat_base):
    from transformers import AutoTokenizer

    from prmkit.data.templates import prompt_template

    tok = AutoTokenizer.from_pretrained(chat_base)
    problems = warm_start_problems(6, seed=1, levels=(1, 2))
    few, zero = sft_rows(problems, tok), sft_rows(problems, tok, template=prompt_template("generate_math_0shot"))
    for p, f, z in zip(problems, few, zero, strict=True):
        assert z["completion"] == f["completion"]  # the same target, a shorter prompt
        assert z["prompt"].count("<|im_start|>user") == 1 and p.question in z["prompt"]
        assert z["prompt"].endswith("<|im_start|>assistant\n")
        assert 3 * len(tok(z["prompt"])["input_ids"]) < len(tok(f["prompt"])["input_ids"])


def test_training_problems_never_are_the_benchs():
    bench = bench_problems(1500, seed=0, levels=(1,))
    drawn = bench_problems(1500, seed=1, levels=(1,))
    # one-operation problems with small numbers repeat across seeds: the hold-out has something to remove
    assert {p.question for p in bench} & {p.question for p in drawn}
    kept = warm_start_problems(1500, seed=1, levels=(1,), bench_seed=0, holdout=1500)
    assert len(kept) == 1500 and not {p.question for p in bench} & {p.question for p in kept}
    assert held_out_questions(0, 1500, (1,), "small") == {p.question for p in bench}
    with pytest.raises(ValueError, match="must differ from the bench"):
        warm_start_problems(4, seed=0, levels=(1,), bench_seed=0)
    other = {p.question for p in bench_problems(1500, seed=5, levels=(1,))}  # another evaluation set
    assert other & {p.question for p in warm_start_problems(1500, seed=1, levels=(1,), holdout=0)}
    kept = warm_start_problems(1500, seed=1, levels=(1,), holdout=0, exclude=other)
    assert len(kept) == 1500 and not other & {p.question for p in kept}


@pytest.mark.parametrize(("settings", "message"), [
    ({"problems": 0}, "problems must be >= 1"),
    ({"levels": "1,9"}, "level(s) [9] outside"),
    ({"levels": "one"}, "levels must be integers"),
    ({"seed": 0}, "is the bench's seed"),
    ({"size": "huge"}, "unknown size 'huge'"),
    ({"batch_size": 6, "micro_batch": 4}, "micro_batch 4 does not divide batch_size 6"),
])
def test_bad_settings_are_refused(settings, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        SFTRunConfig(output="x", **settings)


def test_cli_errors_before_writing(tmp_path, capsys):
    assert main(["sft", "--output", str(tmp_path / "a"), "--levels", "0"]) == 2
    assert "level(s) [0] outside" in capsys.readouterr().err
    assert main(["sft", "--output", str(tmp_path / "b"), "--model", "no-such-model"]) == 2
    assert "no-such-model" in capsys.readouterr().err
    assert main(["sft", "--output", str(tmp_path / "c"), "--exclude", str(tmp_path / "none.jsonl")]) == 2
    assert "--exclude: no such file" in capsys.readouterr().err
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists() and not (tmp_path / "c").exists()


def _settings(chat_base, out, **more):
    return dict(output=str(out), model=chat_base, problems=6, levels="1,2", max_steps=3, batch_size=2, micro_batch=1,
                save_steps=1, logging_steps=1, lr=1e-3, holdout=8, max_length=4096) | more


def test_a_crashed_run_continues_from_its_checkpoint_and_the_policy_feeds_the_bench(chat_base, tmp_path,
                                                                                    monkeypatch):
    import torch
    import trl
    from transformers import AutoModelForCausalLM, TrainerCallback

    from prmkit.models.loading import resolve_model

    out = tmp_path / "sft"
    steps_run: list[int] = []

    class Crash(TrainerCallback):
        """Counts the steps taken; raises right after checkpoint-`at` is written (a crash)."""

        def __init__(self, at: int | None):
            self.at = at

        def on_step_end(self, args, state, control, **kwargs):
            steps_run.append(state.global_step)

        def on_save(self, args, state, control, **kwargs):
            if state.global_step == self.at:
                raise RuntimeError("killed")

    original = trl.SFTTrainer

    def trainer_with(at):
        class Trainer(original):
            def __init__(self, *a, callbacks=(), **k):
                super().__init__(*a, callbacks=[*callbacks, Crash(at)], **k)
        return Trainer

    monkeypatch.setattr(trl, "SFTTrainer", trainer_with(2))
    with pytest.raises(RuntimeError, match="killed"):
        run_sft(SFTRunConfig(**_settings(chat_base, out)), progress=False)
    assert steps_run == [1, 2] and (out / "checkpoint-2").is_dir() and not (out / "config.json").exists()
    assert not (out / "manifest.json").exists()  # written once the warm start is whole
    partial = json.loads((out / "sft_run.json").read_text())
    assert partial["done"] is False and partial["steps"] == 2 and len(partial["train_loss"]) == 2

    monkeypatch.setattr(trl, "SFTTrainer", trainer_with(None))
    record = run_sft(SFTRunConfig(**_settings(chat_base, out)), progress=False)
    assert steps_run == [1, 2, 3]  # the second run took step 3 only
    assert record["done"] and record["steps"] == 3 and record["runs"] == 2
    assert record["resumed_from"].endswith("checkpoint-2")
    assert [x["step"] for x in record["train_loss"]] == [1, 2, 3]
    assert record["train_loss"][:2] == partial["train_loss"]  # the crashed run's log is kept
    assert record["tokens_trained"] > 0 and record["peak_rss_mib"] > 0 and record["seconds"] > 0
    assert record["completion_tokens_per_epoch"] < record["tokens_per_epoch"]

    # the output is a model directory: the policy, changed by training
    policy = AutoModelForCausalLM.from_pretrained(resolve_model(out))
    base = AutoModelForCausalLM.from_pretrained(chat_base)
    assert not torch.equal(policy.model.embed_tokens.weight, base.model.embed_tokens.weight)
    assert policy.config.use_cache is True
    assert (out / "tokenizer.json").is_file()
    made = read_manifest(out)  # what samplers and `prmkit bench` read of the warm start
    assert (made.kind, made.settings["template"], made.cost["steps"]) == ("sft", None, 3)
    assert made.output("data") == out / "sft_data.jsonl" and len(made.output("data").read_text().splitlines()) == 6

    again = run_sft(SFTRunConfig(**_settings(chat_base, out)), progress=False)  # finished: nothing redone
    assert steps_run == [1, 2, 3] and again == record
    with pytest.raises(ValueError, match=r"other settings \(lr: 0.001 -> 0.01\)"):
        run_sft(SFTRunConfig(**_settings(chat_base, out, lr=1e-2)), progress=False)

    # prmkit bench --policy: the samples come from the warm start, the labelers keep --model
    bench = tmp_path / "bench"
    settings = dict(output=str(bench), problems=2, levels="1", policy_k=1, labelers="ig", model=chat_base,
                    policy=str(out), slips="arithmetic", max_new_tokens=4, batch_size=4, bootstrap=0)
    assert BenchConfig(**settings).sampler().model == str(out)
    assert BenchConfig(**(settings | {"policy": None})).sampler().model == chat_base
    report = run_bench(BenchConfig(**settings), progress=False)
    assert report["policy"]["model"] == str(out)
    raw = [json.loads(line) for line in (bench / "policy.raw.jsonl").read_text().splitlines()]
    assert {t["source"] for r in raw for t in r["traces"]} == {f"policy:{out}"}
    with pytest.raises(ValueError, match=r"other settings .*policy"):
        run_bench(BenchConfig(**(settings | {"policy": None})), progress=False)
    with pytest.raises(ValueError, match="was trained on"):  # a bench drawn with the warm start's own seed
        run_bench(BenchConfig(**(settings | {"output": str(tmp_path / "b2"), "seed": 1, "levels": "1,2",
                                             "problems": 4})), progress=False)


def test_a_zero_shot_warm_start_is_sampled_with_its_own_template_everywhere(chat_base, tmp_path):
    from prmkit.data.templates import trained_template
    from prmkit.generate.config import DecodingConfig, GenerateConfig
    from prmkit.rl.config import RLConfig
    from prmkit.rl.run import run_grpo

    out = tmp_path / "zero"
    run_sft(SFTRunConfig(**_settings(chat_base, out, max_steps=1, template="generate_math_0shot")), progress=False,
            log=lambda _: None)
    assert trained_template(out) == "generate_math_0shot" and trained_template(chat_base) is None
    rows = [json.loads(line) for line in (out / "sft_data.jsonl").read_text().splitlines()]
    assert all(r["prompt"].count("<|im_start|>user") == 1 for r in rows)  # no few-shot turns
    bench = dict(output=str(tmp_path / "bench"), problems=2, levels="1", model=chat_base, policy=str(out),
                 policy_k=1, labelers="ig", slips="arithmetic", max_new_tokens=4, batch_size=4, bootstrap=0)
    refused = "warm-started on template 'generate_math_0shot' but would be sampled with the domain's few-shot"
    with pytest.raises(ValueError, match=refused + ".*give --template generate_math_0shot"):
        run_bench(BenchConfig(**bench), progress=False)
    assert not (tmp_path / "bench").exists()  # refused before anything is written
    with pytest.raises(ValueError, match=refused):
        GenerateConfig(model=str(out)).make_backend()
    with pytest.raises(ValueError, match=refused):
        run_grpo(RLConfig(model=str(out), data="demo", output=str(tmp_path / "rl")), log=lambda _: None)
    with pytest.raises(ValueError, match="sampled with template 'generate_math_1shot'"):
        GenerateConfig(model=str(out), decoding=DecodingConfig(template="generate_math_1shot")).make_backend()
    zero_shot = DecodingConfig(template="generate_math_0shot")
    assert GenerateConfig(model=str(out), decoding=zero_shot).make_backend() is not None
    GenerateConfig(model=chat_base, decoding=zero_shot).make_backend()  # any other model: any template

    report = run_bench(BenchConfig(**(bench | {"template": "generate_math_0shot"})), progress=False)
    assert report["policy"]["model"] == str(out)
    assert json.loads((tmp_path / "bench" / "settings.json").read_text())["template"] == "generate_math_0shot"
    with pytest.raises(ValueError, match="no built-in template 'nope'"):
        BenchConfig(**(bench | {"template": "nope"}))


@pytest.fixture(scope="module")
def gemma_base(tmp_path_factory):
    """A tiny model of Gemma-3-270M's kind: gemma3_text, tied embeddings, a tokenizer that adds <bos> and has <eos>
    and <pad> of its own, left padding, no chat template (the packaged `gemma3-270m` is a base model)."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import Gemma3ForCausalLM, Gemma3TextConfig, PreTrainedTokenizerFast

    from helpers import WORDS

    special = ["<pad>", "<eos>", "<bos>", "<unk>"]
    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator([WORDS] * 20, trainers.BpeTrainer(vocab_size=300, special_tokens=special,
                                                              initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    tok.post_processor = processors.TemplateProcessing(single="<bos> $A", special_tokens=[("<bos>", 2)])
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="<pad>", eos_token="<eos>", bos_token="<bos>",
                                   unk_token="<unk>", padding_side="left")
    torch.manual_seed(0)
    config = Gemma3TextConfig(vocab_size=len(fast), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                              num_attention_heads=2, num_key_value_heads=1, head_dim=32, max_position_embeddings=4096,
                              sliding_window=64, pad_token_id=0, eos_token_id=1, bos_token_id=2,
                              tie_word_embeddings=True)
    path = tmp_path_factory.mktemp("gemma_base")
    Gemma3ForCausalLM(config).save_pretrained(path)
    fast.save_pretrained(path)
    return str(path)


def test_a_model_without_a_chat_template_warm_starts_zero_shot_as_its_rollouts_read_it(gemma_base, tmp_path):
    """Gemma-3-270M as a PUM student: `prmkit sft --template generate_math_0shot` on raw text, each completion
    following the prompt as a rollout's partial answer does; the policy keeps its tied embeddings and is rolled out
    with its template, and a student spec without the template is refused."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from prmkit.generate.config import DecodingConfig, RolloutConfig
    from prmkit.generate.rollout import PrefixRequest, partial_answer, rollout_prefixes
    from prmkit.label import PumLabelConfig, build_labelers

    out, held = tmp_path / "gemma", tmp_path / "evaluation.jsonl"
    first = warm_start_problems(6, seed=1, levels=(1, 2), holdout=8)[0]  # left out by --exclude: the others move up
    held.write_text(json.dumps({"question": first.question}) + "\n")
    settings = _settings(gemma_base, out, max_steps=2, template="generate_math_0shot", exclude=[str(held)])
    record = run_sft(SFTRunConfig(**settings), progress=False, log=lambda _: None)
    assert record["done"] and record["steps"] == 2
    assert json.loads((out / "sft_settings.json").read_text())["exclude"] == [str(held)]
    rows = [json.loads(line) for line in (out / "sft_data.jsonl").read_text().splitlines()]
    assert len(rows) == 6 and first.question not in {r["question"] for r in rows}
    tok = AutoTokenizer.from_pretrained(out)
    for row in rows:
        steps = row["completion"].strip().split(" [STEP] ")  # the trace's steps, as a rollout prefix holds them
        assert row["prompt"].startswith("Solve each problem") and row["prompt"].endswith("Answer:\n")
        assert (row["prompt"] + row["completion"]).startswith(partial_answer(row["prompt"], steps[:1]))
        ids = tok(row["prompt"] + row["completion"] + tok.eos_token)["input_ids"]
        assert ids[0] == tok.bos_token_id and ids.count(tok.bos_token_id) == 1 and ids[-1] == tok.eos_token_id
    policy = AutoModelForCausalLM.from_pretrained(out)
    assert policy.config.model_type == "gemma3_text" and policy.config.tie_word_embeddings
    assert policy.lm_head.weight.data_ptr() == policy.model.embed_tokens.weight.data_ptr()
    assert not torch.equal(policy.model.embed_tokens.weight,
                           AutoModelForCausalLM.from_pretrained(gemma_base).model.embed_tokens.weight)
    config = RolloutConfig(model=str(out), decoding=DecodingConfig(template="generate_math_0shot", max_new_tokens=3),
                           k=2)
    problem = warm_start_problems(6, seed=1, levels=(1, 2), holdout=8, exclude={first.question})[0]
    assert problem.id == rows[0]["problem_id"]
    request = PrefixRequest(f"{problem.id}@1", problem, (rows[0]["completion"].split(" [STEP] ")[0],))
    (rolled,) = rollout_prefixes([request], config.make_backend(), config.sampling()).records
    assert len(rolled.continuations) == 2 and rolled.tokens_read > 0
    with pytest.raises(ValueError, match="warm-started on template 'generate_math_0shot'"):
        build_labelers(["pum"], [PumLabelConfig(students=[f"transformers:{out}"])])
    build_labelers(["pum"], [PumLabelConfig(students=[f"transformers:{out}#generate_math_0shot"])])


def test_a_max_length_not_above_the_prompt_is_refused_before_training(chat_base, tmp_path):
    """--max-length under the prompt's tokens cut every completion whole, and TRL then failed with "num_samples
    should be a positive integer value"; the run is refused before training, naming the prompt's length and the
    flag."""
    out = tmp_path / "sft"
    with pytest.raises(ValueError, match=r"--max-length 32 is not above the prompt's length: the longest prompt "
                                         r"\(problem .*\) has \d+ tokens"):
        run_sft(SFTRunConfig(**_settings(chat_base, out, max_length=32)), progress=False, log=lambda _: None)
    assert not list(out.glob("checkpoint-*")) and not (out / "sft_run.json").exists()
