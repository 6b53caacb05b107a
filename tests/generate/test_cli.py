"""End to end: the real `prmkit generate` and `prmkit verify` on the tiny random model."""

from __future__ import annotations

import json

from prmkit.cli.main import main
from prmkit.data.manifest import read_manifest
from prmkit.data.records import Problem


def test_generate_then_verify(tiny_model_dir, tmp_path, capsys):
    data = tmp_path / "problems.jsonl"
    data.write_text(
        "".join(
            json.dumps(Problem(f"q{k}", f"What is {k} + 1?", str(k + 1)).to_dict()) + "\n" for k in range(3)
        )
    )
    out = tmp_path / "pools.jsonl"
    argv = [
        "generate",
        "--data",
        str(data),
        "--model",
        tiny_model_dir,
        "--k",
        "4",
        "--max-new-tokens",
        "6",
        "--batch-size",
        "8",
        "--output",
        str(out),
        "--quiet",
    ]
    assert main(argv) == 0
    raw = [json.loads(ln) for ln in (tmp_path / "pools.raw.jsonl").read_text().splitlines()]
    assert [len(p["traces"]) for p in raw] == [4, 4, 4]
    made = read_manifest(out)  # beside the output: what a reader asks (was it filtered? where is every sample?)
    assert (made.kind, made.settings["filter"], made.settings["k"]) == ("generate", True, 4)
    assert made.output("raw") == tmp_path / "pools.raw.jsonl" and made.inputs == {"data": str(data)}
    assert made.cost["samples"] == 12 and made.cost["tokens"] > 0
    printed = capsys.readouterr().out
    assert "1. with an extractable answer" in printed and "tok/s" in printed
    assert main(argv) == 0 and "(3 already in" in capsys.readouterr().out  # resumed: nothing regenerated
    assert main([*argv, "--template", "generate_math_0shot"]) == 2  # extending it with another prompt: refused
    assert "other settings (template: None -> 'generate_math_0shot')" in capsys.readouterr().err
    # a pool with wrong stored verdicts: `verify` repairs them
    pool = {
        "problem": Problem("z", "1+1?", "2").to_dict(),
        "traces": [
            {"id": "z/0", "problem_id": "z", "steps": ["$2$"], "answer": "2", "correct": False},
            {"id": "z/1", "problem_id": "z", "steps": ["$3$"], "answer": "3", "correct": True},
        ],
    }
    bad, fixed = tmp_path / "bad.jsonl", tmp_path / "fixed.jsonl"
    bad.write_text(json.dumps(pool) + "\n")
    assert main(["verify", str(bad), "--output", str(fixed)]) == 0
    assert "2 changed" in capsys.readouterr().out
    got = json.loads(fixed.read_text())
    assert [t["correct"] for t in got["traces"]] == [True, False]
    assert got["problem"]["meta"] == {"correct_answers": ["2"], "incorrect_answers": ["3"]}
    # a filtered pool keeps the full answer sets of all K samples, re-validated: "7/3" (wrongly stored as
    # correct) moves to W_q, "2.0" (wrongly stored as incorrect) to C_q, though no trace holds them
    pool["problem"]["meta"] = {"correct_answers": ["2", "7/3"], "incorrect_answers": ["3", "2.0", "5"]}
    bad.write_text(json.dumps(pool) + "\n")
    assert main(["verify", str(bad), "--output", str(fixed)]) == 0
    meta = json.loads(fixed.read_text())["problem"]["meta"]
    assert meta == {"correct_answers": ["2", "2.0"], "incorrect_answers": ["3", "7/3", "5"]}


def test_verify_reextract_rereads_answers_from_the_steps(tmp_path, capsys):
    pool = {
        "problem": Problem("m", "Pay?", "10").to_dict(),
        "traces": [  # answers as an older extractor read them: a "$...$" pair spanning currency signs
            {"id": "m/0", "problem_id": "m", "steps": ["She earns $12 a day.", "so she gets $"],
             "answer": "12 a day. [STEP] so she gets", "correct": False},
            {"id": "m/1", "problem_id": "m", "steps": ["5 + 5 = 10.", "The answer is $10."],
             "answer": None, "correct": False},
        ],
    }
    src, out = tmp_path / "raw.jsonl", tmp_path / "raw2.jsonl"
    src.write_text(json.dumps(pool) + "\n")
    assert main(["verify", str(src), "--reextract", "--output", str(out)]) == 0
    assert "re-extracted answers: 2 changed" in capsys.readouterr().out
    got = json.loads(out.read_text())["traces"]
    assert [(t["answer"], t["correct"]) for t in got] == [(None, False), ("10", True)]


def test_generate_from_a_config_file(tiny_model_dir, tmp_path, capsys):
    conf, out = tmp_path / "gen.yaml", tmp_path / "pools.jsonl"
    conf.write_text(f"data: demo\nlimit: 2\nmodel: {tiny_model_dir}\nk: 2\nmax_new_tokens: 4\nfilter: false\n")
    assert main(["generate", "--config", str(conf), "--batch-size", "4", "--output", str(out), "--quiet"]) == 0
    pools = [json.loads(ln) for ln in out.read_text().splitlines()]
    assert [len(p["traces"]) for p in pools] == [2, 2]  # no filter: every trace kept
    assert "wrote 2 pools" in capsys.readouterr().out
    bad = tmp_path / "bad.yaml"
    bad.write_text("data: demo\nnot_a_field: 1\n")
    assert main(["generate", "--config", str(bad), "--output", str(out)]) == 2


def test_verify_reads_a_json_list_of_pools_as_one_document_like_every_verb(tmp_path, capsys):
    """`verify` read a `.json` file as JSON lines (an indented list failed at its first line) where label, score
    and the others read it as one document (`iter_input`); `generate --data` read Pool and Problem records so too."""
    pools = [{"problem": Problem(pid, "1+1?", "2").to_dict(),
              "traces": [{"id": f"{pid}/0", "problem_id": pid, "steps": ["$2$"], "answer": "2", "correct": False}]}
             for pid in ("a", "b")]
    listed, fixed = tmp_path / "pools.json", tmp_path / "fixed.jsonl"
    listed.write_text(json.dumps(pools, indent=1))
    assert main(["verify", str(listed), "--output", str(fixed)]) == 0
    assert "2 traces in 2 pools: 0 verdicts unchanged, 2 changed" in capsys.readouterr().out
    assert [json.loads(line)["traces"][0]["correct"] for line in fixed.read_text().splitlines()] == [True, True]
    from prmkit.generate.sources import load_problems

    assert [p.id for p in load_problems(str(listed))] == ["a", "b"]
