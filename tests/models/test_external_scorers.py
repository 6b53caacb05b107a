"""PRMs trained elsewhere as step scorers: `token-classification` (a prmkit export-hf output, Qwen2.5-Math-PRM's
`<extra_0>` layout), `step-tag` (Math-Shepherd's good/bad tokens at `ки`) and `openai-pooling` (a vLLM server's
/pooling endpoint, here a fake one on 127.0.0.1). Each loads a tiny random model saved in its format, and its step
scores equal a direct transformers computation written from the format's own recipe, within MODEL_ABS."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import torch

from helpers import pool_dict, write_jsonl
from prmkit.cli.main import main
from prmkit.models.scorer_spec import load_scorer_spec, parse_scorer_spec
from tolerances import MODEL_ABS

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

QUESTION = "Tom has 3 apples and buys 4 more . How many apples does he have now ?"
TRACES = [["3 + 4 = 7", "so the answer is 7"], ["3 * 4 = 12", "wrong step", "the answer is 12"]]
SYSTEM = "Reason step by step ."
CHAT = ("{% for m in messages %}<|{{ m.role }}|>{{ m.content }}\n{% endfor %}"
        "{% if add_generation_prompt %}<|assistant|>{% endif %}")


def _max_delta(ours: list[list[float]], theirs: list[list[float]]) -> float:
    assert [len(s) for s in ours] == [len(s) for s in theirs]
    return max(abs(a - b) for x, y in zip(ours, theirs, strict=True) for a, b in zip(x, y, strict=True))


def qwen_layout_model(tiny_base: str, directory: Path) -> Path:
    """A 2-class LlamaForTokenClassification with Qwen2.5-Math-PRM's layout: `<extra_0>` a special token, a chat
    template, class 1 = step right, no `prmkit` field in config.json."""
    from transformers import AutoConfig, AutoTokenizer, LlamaForTokenClassification

    tok = AutoTokenizer.from_pretrained(tiny_base)
    tok.add_special_tokens({"additional_special_tokens": ["<extra_0>"]})
    tok.chat_template = CHAT
    config = AutoConfig.from_pretrained(tiny_base)
    config.vocab_size, config.num_labels = len(tok), 2
    torch.manual_seed(5)
    model = LlamaForTokenClassification(config)
    with torch.no_grad():
        model.score.weight.normal_(0, 0.5)  # scores spread over (0, 1)
    model.save_pretrained(directory)
    tok.save_pretrained(directory)
    return directory


def qwen_card_scores(path: Path, question: str, steps_list: list[list[str]]) -> list[list[float]]:
    """Qwen2.5-Math-PRM's model card: the steps joined by `<extra_0>` in the chat, probabilities at `<extra_0>`,
    class 1."""
    from transformers import AutoModelForTokenClassification, AutoTokenizer

    model, tok = AutoModelForTokenClassification.from_pretrained(path).eval(), AutoTokenizer.from_pretrained(path)
    sep = tok.convert_tokens_to_ids("<extra_0>")
    out = []
    for steps in steps_list:
        messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": question},
                    {"role": "assistant", "content": "<extra_0>".join(steps) + "<extra_0>"}]
        ids = tok.encode(tok.apply_chat_template(messages, tokenize=False), return_tensors="pt")
        with torch.no_grad():
            probs = model(ids).logits[0].softmax(-1)
        out.append(probs[ids[0] == sep][:, 1].tolist())
    return out


def test_token_classification_scores_a_qwen_layout_model_as_its_model_card_does(tiny_base, tmp_path):
    path = qwen_layout_model(tiny_base, tmp_path / "qwen_like")
    scorer = load_scorer_spec(f"token-classification:{path},sep=<extra_0>,system={SYSTEM}")
    ours, theirs = scorer.score_steps(QUESTION, TRACES), qwen_card_scores(path, QUESTION, TRACES)
    delta = _max_delta(ours, theirs)
    print(f"token-classification (Qwen layout): max |delta| = {delta:.2e}")
    assert delta <= MODEL_ABS
    assert max(map(max, ours)) - min(map(min, ours)) > 100 * MODEL_ABS  # a wrong class or position would show


def test_token_classification_of_an_export_equals_prmkit_score_of_its_checkpoint(tiny_base, tmp_path):
    import prmkit
    from models.test_hf_export import _checkpoint

    deltas = {}
    for kind in ("prm", "orm"):
        ckpt = _checkpoint(tiny_base, tmp_path / f"{kind}_ckpt", kind)
        prmkit.api.export_hf(model=str(ckpt), output=str(tmp_path / f"{kind}_hf"))
        pools = write_jsonl(tmp_path / "pools.jsonl", [pool_dict("p0", QUESTION, "7", [(s, "7", True)
                                                                                       for s in TRACES])])
        prmkit.api.score(ckpt, pools, tmp_path / f"{kind}_ref.jsonl")
        assert main(["score", "--model", f"token-classification:{tmp_path / f'{kind}_hf'}", "--input", pools,
                     "--output", str(tmp_path / f"{kind}_tc.jsonl")]) == 0
        ref, tc = ([json.loads(line)["step_scores"] for line in (tmp_path / f"{kind}_{n}.jsonl").read_text()
                    .splitlines()] for n in ("ref", "tc"))
        assert [len(s) for s in tc] == ([1, 1] if kind == "orm" else [2, 3])
        deltas[kind] = _max_delta(tc, ref)
    print(f"token-classification (prmkit export-hf) vs prmkit score: max |delta| = {deltas}")
    assert max(deltas.values()) <= MODEL_ABS


def math_shepherd_scores(path: Path, question: str, steps_list: list[list[str]], tag: str, good: str,
                         bad: str) -> list[list[float]]:
    """Math-Shepherd's recipe with the full LM logits: softmax over [good, bad] at each step's tag (ids built step by
    step, the tag's last id after each)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    model, tok = AutoModelForCausalLM.from_pretrained(path).eval(), AutoTokenizer.from_pretrained(path)
    last = [tok(t, add_special_tokens=False).input_ids[-1] for t in (tag, good, bad)]
    out = []
    for steps in steps_list:
        ids, tags = tok(f"{question} ").input_ids, []
        for step in steps:
            ids += [*tok(step, add_special_tokens=False).input_ids, last[0]]
            tags.append(len(ids) - 1)  # not every id equal to the tag's: a step may hold the tag's text
        with torch.no_grad():
            logits = model(torch.tensor([ids])).logits[0]
        pos = torch.tensor(tags)
        out.append(logits[pos][:, last[1:]].softmax(-1)[:, 0].tolist())
    return out


def test_step_tag_scores_good_against_bad_at_the_tag(tiny_base, tmp_path):
    ours = load_scorer_spec(f"step-tag:{tiny_base}").score_steps(QUESTION, TRACES)
    delta = _max_delta(ours, math_shepherd_scores(Path(tiny_base), QUESTION, TRACES, "ки", "+", "-"))
    print(f"step-tag (ки, +, -): max |delta| = {delta:.2e}")
    assert delta <= MODEL_ABS
    assert max(map(max, ours)) - min(map(min, ours)) > 100 * MODEL_ABS


def test_step_tag_reads_its_tokens_from_the_json_beside_the_model(tiny_base, tmp_path):
    import shutil

    path = Path(shutil.copytree(tiny_base, tmp_path / "shepherd_like"))
    (path / "prmkit_step_tag.json").write_text(json.dumps({"tag": " step", "good": " right", "bad": " wrong"}))
    ours = load_scorer_spec(f"step-tag:{path}").score_steps(QUESTION, TRACES)
    delta = _max_delta(ours, math_shepherd_scores(path, QUESTION, TRACES, " step", " right", " wrong"))
    assert delta <= MODEL_ABS
    spec_wins = load_scorer_spec(f"step-tag:{path},good=+,bad=-,tag=ки").score_steps(QUESTION, TRACES)
    assert _max_delta(spec_wins, math_shepherd_scores(path, QUESTION, TRACES, "ки", "+", "-")) <= MODEL_ABS


class FakeVLLM:
    """A vLLM-like server on 127.0.0.1: /pooling (task token_classify, the STEP pooler: softmax rows at the step
    tag id) and /tokenize, computed with a local token-classification model."""

    def __init__(self, path: Path, step_tag_id: int):
        from transformers import AutoModelForTokenClassification, AutoTokenizer

        self.model = AutoModelForTokenClassification.from_pretrained(path).eval()
        self.tok, self.step_tag_id, self.requests = AutoTokenizer.from_pretrained(path), step_tag_id, []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                fake.requests.append((self.path, body))
                answer = fake.pooling(body) if self.path == "/pooling" else fake.tokenize(body)
                data = json.dumps(answer).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def pooling(self, body):
        assert body["task"] == "token_classify"
        data = []
        for k, ids in enumerate(body["input"]):
            with torch.no_grad():
                probs = self.model(torch.tensor([ids])).logits[0].softmax(-1)
            rows = probs[torch.tensor(ids) == self.step_tag_id].tolist()  # the STEP pooler
            data.append({"index": k, "object": "pooling", "data": rows})
        return {"id": "pool-1", "object": "list", "created": 0, "model": "m", "data": data,
                "usage": {"prompt_tokens": sum(map(len, body["input"]))}}

    def tokenize(self, body):
        ids = self.tok(body["prompt"], add_special_tokens=body.get("add_special_tokens", True)).input_ids
        return {"tokens": ids, "count": len(ids), "max_model_len": 512}


def test_openai_pooling_scores_through_a_vllm_like_server(tiny_base, tmp_path):
    path = qwen_layout_model(tiny_base, tmp_path / "qwen_like")
    from transformers import AutoTokenizer

    server = FakeVLLM(path, AutoTokenizer.from_pretrained(path).convert_tokens_to_ids("<extra_0>"))
    try:
        theirs = qwen_card_scores(path, QUESTION, TRACES)
        local = load_scorer_spec(f"openai-pooling:{server.url},tokenizer={path},sep=<extra_0>,system={SYSTEM},"
                                 "model=qwen-prm").score_steps(QUESTION, TRACES)
        remote = load_scorer_spec(f"openai-pooling:{server.url},sep=<extra_0>,prompt=<|user|>{{question}}\\n")
        via_tokenize = remote.score_steps(QUESTION, TRACES)
    finally:
        server.server.shutdown()
    delta = _max_delta(local, theirs)
    print(f"openai-pooling (local tokenizer) vs the model card: max |delta| = {delta:.2e}")
    assert delta <= MODEL_ABS
    assert {p for p, _ in server.requests} == {"/pooling", "/tokenize"}
    assert next(b for p, b in server.requests if p == "/pooling")["model"] == "qwen-prm"
    assert [len(s) for s in via_tokenize] == [2, 3] and via_tokenize != local  # another prompt, the same steps


def test_a_spec_names_kind_path_and_options_and_bad_ones_are_clear_errors(tiny_base):
    assert parse_scorer_spec("openai-pooling:http://127.0.0.1:8000,positive=0") == (
        "openai-pooling", "http://127.0.0.1:8000", {"positive": 0})
    with pytest.raises(ValueError, match="unknown option"):
        load_scorer_spec(f"step-tag:{tiny_base},sepp=x")
    with pytest.raises(ValueError, match="takes no options"):
        load_scorer_spec(f"{tiny_base},sep=x")
    with pytest.raises(ValueError, match="names the kind step-tag, but --scorer says"):
        load_scorer_spec(f"step-tag:{tiny_base}", "token-classification")
    with pytest.raises(ValueError, match=r"has no \{question\}"):  # the question would be dropped from every input
        load_scorer_spec("openai-pooling:http://127.0.0.1:9,sep_id=5,prompt=Solve this.")
