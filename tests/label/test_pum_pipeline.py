"""`prmkit pum` end to end on two tiny random students (the embedded tokenizer, random weights): prefixes, K
rollouts each, the ledger, resume, pairs, figures; then `prmkit train pum` on hand-made pairs must learn to rank."""

import json

import pytest

from helpers import embedded_tokenizer_or_skip, pool_dict, write_jsonl
from prmkit.cli.main import main
from prmkit.data.jsonl import read_records
from prmkit.data.manifest import read_manifest
from prmkit.data.records import PrefixPair
from prmkit.models.reward import RewardModel
from prmkit.models.scorer import score_traces


def _student(path, seed):
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    tok = embedded_tokenizer_or_skip()
    torch.manual_seed(seed)
    cfg = LlamaConfig(vocab_size=len(tok), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                      num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=2048,
                      bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id)
    LlamaForCausalLM(cfg).save_pretrained(path)
    tok.save_pretrained(path)
    return str(path)


@pytest.fixture(scope="module")
def students(tmp_path_factory):
    return [_student(tmp_path_factory.mktemp(f"student{k}"), k) for k in range(2)]


def test_pum_pipeline_end_to_end(students, tmp_path, capsys):
    pools = write_jsonl(tmp_path / "pools.jsonl", [
        pool_dict("p0", "Tom has 3 apples and buys 4 more. How many?", "7",
                  [(["Tom starts with 3.", "He buys 4 more: 3 + 4 = 7.", "The answer is 7."], "7", True),
                   (["Tom starts with 3.", "He buys 4 more: 3 - 4 = -1.", "The answer is -1."], "-1", False)]),
        pool_dict("p1", "Sam has 5 pens and loses 2. How many?", "3",
                  [(["Sam has 5 pens.", "5 - 2 = 3.", "The answer is 3."], "3", True),
                   (["The answer is 3."], "3", True)])])  # one step: no prefix
    out = tmp_path / "pum"
    argv = ["pum", "--input", pools, "--output-dir", str(out), "--students", *students, "--k", "3",
            "--max-new-tokens", "4", "--batch-size", "6", "--quiet"]
    assert main(argv) == 0
    report = json.loads((out / "report.json").read_text())
    prefixes = [json.loads(line) for line in (out / "prefixes.jsonl").read_text().splitlines()]
    # 3 traces with >= 2 steps; step counts 1 and 2 of each (cuts at 0.1..0.9 of 3 steps snap to n in {1, 2})
    assert report["problems"] == 2 and report["prefixes"] == len(prefixes) == 6
    assert {p["prefix_id"] for p in prefixes} == {"p0/0@1", "p0/0@2", "p0/1@1", "p0/1@2", "p1/0@1", "p1/0@2"}
    names = sorted(report["students"])
    assert len(names) == 2
    for name in names:
        ledger = report["students"][name]
        lines = [json.loads(line) for line in (out / f"rollouts-{name}.jsonl").read_text().splitlines()]
        assert ledger["prefixes"] == len(lines) == 8 and ledger["rollouts"] == 24  # 6 prefixes + 2 baselines, K=3
        assert ledger["tokens_generated"] == sum(c["tokens_generated"] for r in lines for c in r["continuations"]) > 0
    assert report["rollouts"] == 48
    clock = [json.loads(line) for line in (out / "seconds.jsonl").read_text().splitlines()]  # a line per batch
    assert {e["student"] for e in clock} == set(names) and sum(e["prefixes"] for e in clock) == 16
    for name in names:
        spent = sum(e["seconds"] for e in clock if e["student"] == name)
        assert report["students"][name]["seconds"] == pytest.approx(spent, abs=0.051) and spent > 0
    assert report["seconds"] == pytest.approx(sum(report["students"][n]["seconds"] for n in names), abs=0.11)
    made = read_manifest(out / "pairs.jsonl")  # the output directory's manifest: what `prmkit payoff` reads
    assert made.kind == "pum" and made.inputs == {"pools": [pools]} and made.output("pairs") == out / "pairs.jsonl"
    assert made.cost == {"tokens_read": sum(report["students"][n]["tokens_read"] for n in names),
                         "tokens_generated": report["tokens_generated"], "seconds": report["seconds"], "rollouts": 48}
    row = prefixes[0]
    for s in names:  # the gain is q(p) - q(empty) for every student
        assert row["gain"][s] == pytest.approx(row["q"][s] - row["q0"][s])
    counts = report["pair_counts"]
    pairs = list(read_records(out / "pairs.jsonl", PrefixPair.from_dict))
    # vertical: one per trace (3); horizontal: p0's two traces at equal positions, lengths within 5 %
    assert counts["candidates"] == len(pairs) + counts["uncertain"] + counts["no_valid_student"]
    assert sum(counts["by_label"].values()) == len(pairs) and {p.kind for p in pairs} <= {"vertical", "horizontal"}
    assert (out / "fig6_gain_by_position.png").stat().st_size > 1000
    assert (out / "fig7_agreement.png").stat().st_size > 1000 and len(report["agreement"]) == 1
    # a re-run resumes: nothing is generated again
    sizes = {n: (out / f"rollouts-{n}.jsonl").read_text() for n in names}
    assert main(argv) == 0
    assert {n: (out / f"rollouts-{n}.jsonl").read_text() for n in names} == sizes
    assert '"pairs"' in capsys.readouterr().out
    # --no-rollout rebuilds prefixes and pairs from the rollout files alone: the same pairs
    pairs_text = (out / "pairs.jsonl").read_text()
    assert main([*argv, "--no-rollout"]) == 0 and (out / "pairs.jsonl").read_text() == pairs_text
    # extending the rollouts with other sampling settings is refused before any model loads
    assert main([*argv[:-1], "--max-new-tokens", "5", "--quiet"]) == 2
    assert "other settings (max_new_tokens: 4 -> 5)" in capsys.readouterr().err
    assert main([*argv[:-1], "--template", "generate_math_0shot", "--quiet"]) == 2  # another prompt, too
    assert "other settings (template: None -> 'generate_math_0shot')" in capsys.readouterr().err
    # settings written before the template was one of them (no key: the few-shot prompt) still resume
    settings = json.loads((out / "settings.json").read_text())
    (out / "settings.json").write_text(json.dumps({n: {k: v for k, v in s.items() if k != "template"}
                                                   for n, s in settings.items()}))
    assert main(argv) == 0
    assert {n: (out / f"rollouts-{n}.jsonl").read_text() for n in names} == sizes


Q = "Tom has 3 apples and buys 4 more . How many apples does he have now ?"
GOOD, BAD = ["3 + 4 = 7", "so the answer is 7"], ["3 + 4 = 8 wrong step", "so the answer is 8 mistake"]


def test_train_pum_learns_to_rank(tiny_base, tmp_path):
    pairs = []
    for k in range(8):
        good, bad = GOOD[: 1 + k % 2], BAD[: 1 + k % 2]
        a, b, label = (good, bad, 1) if k % 3 else (bad, good, -1)
        pairs.append({"problem_id": f"p{k}", "question": Q, "prefix_a": a, "prefix_b": b, "label": label,
                      "id_a": f"p{k}/a@1", "id_b": f"p{k}/b@1", "kind": "horizontal"})
    pairs.append({"problem_id": "p8", "question": Q, "prefix_a": GOOD, "prefix_b": GOOD[:1], "label": 0,
                  "id_a": "p8/a@2", "id_b": "p8/a@1", "kind": "vertical"})
    path = write_jsonl(tmp_path / "pairs.jsonl", pairs)
    out = tmp_path / "pum_model"
    assert main(["train", "pum", "--pairs", path, "--held-out", "2", "--model", tiny_base, "--epochs", "8",
                 "--lr", "1e-2", "--batch-traces", "4", "--micro-batch", "2", "--output", str(out), "--quiet"]) == 0
    log = json.loads((out / "train_log.json").read_text())
    assert log["model_config"]["kind"] == "bt" and log["model_config"]["aggregation"] == "last"
    assert log["train_traces"] == 14 and log["history"][-1]["loss"] < log["history"][0]["loss"]
    rm = RewardModel.from_pretrained(out)
    good, bad = score_traces(rm, Q, [GOOD, BAD], "last")
    assert good > bad
    partial = rm.score_steps(Q, [GOOD[:1], BAD[:1]])  # partial prefixes, as beam search scores them
    assert partial[0][0] > partial[1][0]
    assert main(["train", "pum", "--pairs", path, "--output", str(tmp_path / "o"), "--micro-batch", "3",
                 "--model", tiny_base]) == 2


def test_sources_keeps_only_the_policy_samples(students, tmp_path, capsys):
    pool = pool_dict("p0", "Tom has 3 apples and buys 4 more. How many?", "7",
                     [(["Tom starts with 3.", "He buys 4 more: 3 + 4 = 7.", "The answer is 7."], "7", True),
                      (["Tom starts with 3.", "He buys 4 more: 3 - 4 = -1.", "The answer is -1."], "-1", False)])
    pool["traces"][0]["source"], pool["traces"][1]["source"] = "policy:runs/sft", "bench-constructed"
    pools = write_jsonl(tmp_path / "pools.jsonl", [pool])
    argv = ["pum", "--input", pools, "--students", *students, "--no-rollout", "--quiet"]
    assert main([*argv, "--output-dir", str(tmp_path / "a"), "--sources", "policy"]) == 0
    prefixes = [json.loads(line) for line in (tmp_path / "a" / "prefixes.jsonl").read_text().splitlines()]
    assert {p["trace_id"] for p in prefixes} == {"p0/0"}  # the constructed trace is left out
    assert main([*argv, "--output-dir", str(tmp_path / "b"), "--sources", "gsm8k"]) == 2
    assert "the sources are 'bench-constructed', 'policy:runs/sft'" in capsys.readouterr().err
