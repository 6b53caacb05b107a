"""The domain registry: one `Domain` record per domain, the validator, extractor and stop tables as views of it,
one error for an unknown domain, and a new domain (toy_domain.py) added with one file plus one registry line, then
used by the real extraction, validation, `prmkit generate` and `prmkit rollout` paths."""

from __future__ import annotations

import json

import pytest

from generate.toy_domain import TOY, last_capital_word
from prmkit.cli.main import main
from prmkit.data.records import Pool, Problem, Trace
from prmkit.domains import (
    DOMAINS,
    EXTRACTORS,
    STOP,
    VALIDATORS,
    domain,
    extract_answer,
    get_validator,
    parse_completion,
    verify_answer,
    verify_answers,
)
from prmkit.generate import build_prompt, make_pool
from prmkit.generate.prompts import domain_template


def test_the_tables_are_views_of_the_domains():
    assert list(DOMAINS) == ["math", "python", "sql", "choice"]
    for name, spec in DOMAINS.items():
        assert spec.name == name
        assert (VALIDATORS[name], EXTRACTORS[name], STOP[name]) == (spec.validator, spec.extract, spec.stop)
        assert domain_template(name) == spec.template and "{question}" in spec.template
    assert list(VALIDATORS) == list(EXTRACTORS) == list(STOP) == list(DOMAINS)
    assert STOP.get("poetry", ()) == () and "poetry" not in VALIDATORS
    with pytest.raises(TypeError):
        VALIDATORS["math"] = None  # read-only: a domain is added to DOMAINS


def test_an_unknown_domain_is_one_error_listing_the_domains():
    with pytest.raises(ValueError) as raised:
        domain("poetry")
    message = str(raised.value)
    assert "'poetry'" in message and "known: math, python, sql, choice" in message
    problem = Problem("p", "?", "1", domain="poetry")
    for call in (lambda: extract_answer("poetry", "$1$"), lambda: verify_answer(problem, "1"),
                 lambda: get_validator("poetry"), lambda: domain_template("poetry"), lambda: build_prompt(problem)):
        with pytest.raises(ValueError) as other:
            call()
        assert str(other.value) == message


def test_what_a_problem_shows_in_the_prompt():
    stub = "def add(a, b):\n    "
    code = Problem("c", "add two numbers", "", domain="python", meta={"prompt": stub})
    assert "### Problem\n" + stub + "\n### Solution" in build_prompt(code)  # the stub as given, unstripped
    assert DOMAINS["python"].prompt_text(Problem("c", "q  ", "", domain="python")) == "q  "  # no stub: the question
    assert DOMAINS["math"].prompt_text(Problem("m", "2+2?  \n", "4")) == "2+2?"
    # a template of one's own serves a problem of a domain not registered
    assert build_prompt(Problem("p", "why? ", "", domain="poetry"), "Q: {question}|") == "Q: why?|"


@pytest.fixture
def upper(monkeypatch):
    """The toy domain, registered for one test: the one line a new domain needs."""
    monkeypatch.setitem(DOMAINS, "upper", TOY)
    return Problem("sky", "What colour is grass?", "green", domain="upper")


def test_a_new_domain_is_one_record_and_one_line(upper):
    assert domain("upper") is TOY and list(VALIDATORS)[-1] == "upper" and STOP["upper"] == ("\nQuestion:",)
    texts = ["Grass holds chlorophyll. [STEP] The answer is GREEN.", "It is RED [STEP] no, BLUE.", "no capitals"]
    assert [extract_answer("upper", t) for t in texts] == ["GREEN", "BLUE", None]
    assert parse_completion("upper", texts[1]) == (["It is RED", "no, BLUE."], "BLUE")
    assert [v.ok for v in verify_answers([(upper, extract_answer("upper", t)) for t in texts])] == [True, False, False]
    assert verify_answer(upper, "Green").ok
    prompt = build_prompt(upper)
    assert prompt.startswith("Answer with one word in capitals") and prompt.endswith("Question: What colour is grass?"
                                                                                       "\nAnswer:")
    # the function `prmkit generate` turns K completions into a pool with: steps, answers, verdicts, answer sets
    pool = make_pool(upper, texts, "toy")
    assert [(t.answer, t.correct) for t in pool.traces] == [("GREEN", True), ("BLUE", False), (None, False)]
    assert (pool.problem.meta["correct_answers"], pool.problem.meta["incorrect_answers"]) == (["GREEN"], ["BLUE"])


def test_generate_and_rollout_run_on_the_new_domain(upper, tiny_model_dir, tmp_path, capsys):
    data, out = tmp_path / "problems.jsonl", tmp_path / "pools.jsonl"
    data.write_text(json.dumps(upper.to_dict()) + "\n")
    argv = ["generate", "--data", str(data), "--model", tiny_model_dir, "--k", "3", "--max-new-tokens", "8",
            "--no-filter", "--output", str(out), "--quiet"]
    assert main(argv) == 0
    (pool,) = [Pool.from_dict(json.loads(line)) for line in out.read_text().splitlines()]
    assert pool.problem.domain == "upper" and len(pool.traces) == 3
    for t in pool.traces:  # whatever the random model wrote, its answers were read and judged by the toy domain
        assert t.answer is None or t.answer == last_capital_word(t.answer)
        assert t.correct == (t.answer is not None and t.answer.lower() == "green")
    # rollouts after a prefix of a hand-written trace: each continuation read and judged by the toy domain
    pools = tmp_path / "toy_pools.jsonl"
    trace = Trace("sky/0", "sky", ["Grass is a plant.", "Plants hold chlorophyll."], "GREEN", True, "hand")
    pools.write_text(json.dumps(Pool(upper, [trace]).to_dict()) + "\n")
    rolled = tmp_path / "rollouts.jsonl"
    argv = ["rollout", "--input", str(pools), "--positions", "1", "--model", tiny_model_dir, "--k", "2",
            "--max-new-tokens", "6", "--output", str(rolled), "--quiet"]
    assert main(argv) == 0
    (record,) = [json.loads(line) for line in rolled.read_text().splitlines()]
    assert record["prefix_steps"] == 1 and len(record["continuations"]) == 2
    for c in record["continuations"]:
        assert c["answer"] == last_capital_word(c["text"])
        assert c["correct"] == (c["answer"] is not None and c["answer"].lower() == "green")
    capsys.readouterr()


def test_a_choice_problem_is_prompted_with_its_options_and_its_letter_answer_is_read():
    sky = Problem("sky", "What colour is the sky?", "B", None, "choice", {"options": ["red", "blue", "green"]})
    assert build_prompt(sky).endswith("Question: What colour is the sky?\nA. red\nB. blue\nC. green\nAnswer:\n")
    shown = Problem("s2", "Sky? (A) red (B) blue", "B", None, "choice", {"options": ["red", "blue"]})
    assert build_prompt(shown).endswith("Question: Sky? (A) red (B) blue\nAnswer:\n")  # listed once
    texts = ["It is blue. [STEP] The answer is B.", "The answer is (b).", "The answer is blue.", "The answer is $2$.",
             "The answer is B because it is not red.", "The answer is A.", "no answer"]
    answers = [extract_answer("choice", t) for t in texts]
    assert answers == ["B", "B", "blue", "2", "B", "A", None]
    assert [v.ok for v in verify_answers([(sky, a) for a in answers])] == [True] * 5 + [False, False]
