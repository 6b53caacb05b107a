"""Sampling pools (`generate.sample_pools`) with a scripted backend: validation, answer sets, resumability after a
torn write; demo; sources."""

from __future__ import annotations

import json

from prmkit.data.demo_problems import demo_problems
from prmkit.data.records import Problem
from prmkit.domains import verify_answers
from prmkit.generate.backends import Completion, SamplingConfig
from prmkit.generate.sample_pools import generate_pools
from prmkit.generate.sources import humaneval_problems, load_problems


class Scripted:
    """Answers problem k's sample j with the number k + j (so sample 0 is right when the gold is k)."""

    name = "scripted"

    def __init__(self):
        self.prompts: list[str] = []

    def generate(self, prompts, cfg):
        self.prompts += prompts
        return [
            [
                Completion(f"step a [STEP] The answer is ${int(p.split('#')[1].split()[0]) + j}$.", 5)
                for j in range(cfg.n)
            ]
            for p in prompts
        ]


def _problems(n):
    return [Problem(f"p{k}", f"#{k} what?", str(k)) for k in range(n)]


def test_generate_resumes_after_torn_write(tmp_path):
    out = tmp_path / "raw.jsonl"
    backend = Scripted()
    stats = generate_pools(_problems(3), backend, SamplingConfig(n=4), out, problems_per_batch=2)
    assert stats.problems == 3 and stats.samples == 12 and stats.tokens == 60 and stats.correct == 3
    lines = out.read_text().splitlines()
    pool = json.loads(lines[0])
    assert pool["problem"]["meta"] == {"correct_answers": ["0"], "incorrect_answers": ["1", "2", "3"]}
    assert [t["correct"] for t in pool["traces"]] == [True, False, False, False]
    assert pool["traces"][0]["steps"] == ["step a", "The answer is $0$."]
    out.write_text("\n".join(lines[:2]) + "\n" + lines[2][:40])  # kill -9 in the middle of line 3
    again = generate_pools(_problems(4), backend, SamplingConfig(n=4), out)
    assert (again.skipped, again.problems) == (2, 2)
    ids = [json.loads(ln)["problem"]["id"] for ln in out.read_text().splitlines()]
    assert ids == ["p0", "p1", "p2", "p3"]
    assert "Question: #0 what?" in backend.prompts[0] and "[STEP]" in backend.prompts[0]


def test_demo_is_seeded_and_exact():
    a, b = demo_problems(30, seed=1), demo_problems(30, seed=1)
    assert [p.to_dict() for p in a] == [p.to_dict() for p in b]
    assert [p.question for p in a] != [p.question for p in demo_problems(30, seed=2)]
    for p in a:
        expr = p.meta["expression"]
        assert eval(expr) == int(p.answer) >= 0
        numbers = [t for t in expr.split() if t.isdigit()]
        assert all(t in p.question for t in numbers) or "shares" in p.question


def test_sources(tmp_path):
    gsm = tmp_path / "g.jsonl"
    gsm.write_text(json.dumps({"question": "1+1?", "answer": "1+1=<<1+1=2>>2\n#### 2"}) + "\n")
    assert [(p.question, p.answer) for p in load_problems(str(gsm))] == [("1+1?", "2")]
    probs = tmp_path / "p.jsonl"
    probs.write_text(json.dumps(Problem("x", "q", "3").to_dict()) + "\n")
    assert load_problems(str(probs), domain="choice")[0].domain == "choice"
    assert len(load_problems("demo", limit=5)) == 5
    he = humaneval_problems()
    assert len(he) == 164
    verdicts = verify_answers(
        [(p, p.answer) for p in he[:4]] + [(he[0], "def has_close_elements(a, b):\n    return False\n")]
    )
    assert [v.ok for v in verdicts] == [True, True, True, True, False]
