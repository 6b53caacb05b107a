"""What a domain is: one `Domain` record per problem kind (math, python, sql, choice), all in `DOMAINS`.

A domain says how its problems are prompted (the few-shot `template`, what of a problem fills `{question}`), where
a completion ends (`stop`: the model starting the next few-shot item), how its final answer is read (`extract`)
and checked (`validator`, V_q(y) of the MCNIG paper, sec. 3.1). Generation, rollouts, verification and the RL
rewards read these fields through `domain(name)`, the one place an unknown domain is refused. A new domain is one
`Domain(...)` plus one line `DOMAINS["name"] = ...` (tests/generate/toy_domain.py is one).

`prmkit.verify.VALIDATORS`, `prmkit.generate.extract.EXTRACTORS` and `prmkit.generate.prompts.STOP` are read-only
views of one field of every domain (`prmkit.verify.base.DomainField`): they always agree with `DOMAINS`, a domain
added there shows in them.

    >>> domain("math").extract("2 + 2 = 4. [STEP] The answer is $4$.")
    '4'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from prmkit.data.records import Problem
from prmkit.data.templates import load_template
from prmkit.generate.extract import fenced_answer, math_answer
from prmkit.verify.base import Validator
from prmkit.verify.choice import verify_choice
from prmkit.verify.math import verify_math
from prmkit.verify.python import verify_python
from prmkit.verify.sql import verify_sql

__all__ = ["DOMAINS", "Domain", "code_stub", "domain", "question_text"]


def question_text(problem: Problem) -> str:
    """The question as a prompt shows it: `problem.question` without trailing whitespace."""
    return problem.question.rstrip()


def code_stub(problem: Problem) -> str:
    """A code problem shows its function stub (`meta["prompt"]`, as HumanEval gives it; else the question),
    unstripped: the completion continues the stub's indentation."""
    return problem.meta.get("prompt", problem.question)


@dataclass(frozen=True)
class Domain:
    """One kind of problem. `template`: the few-shot prompt text with `{question}` (and, for SQL, `{schema}`);
    `stop`: strings that end a completion; `extract`: completion text -> final answer or None; `validator`:
    (problem, answer) -> Verdict; `prompt_text`: problem -> the text that fills `{question}`."""

    name: str
    template: str
    stop: tuple[str, ...]
    extract: Callable[[str], str | None]
    validator: Validator
    prompt_text: Callable[[Problem], str] = question_text


_QA_STOP = ("\nQuestion:", "\n\n\n")

DOMAINS: dict[str, Domain] = {d.name: d for d in (
    Domain("math", load_template("generate_math"), _QA_STOP, math_answer, verify_math),
    Domain("python", load_template("generate_python"), ("\n### Problem", "\n### Schema"),
           fenced_answer("python|py"), verify_python, code_stub),
    Domain("sql", load_template("generate_sql"), ("\n### Schema", "\n### Problem"), fenced_answer("sql|sqlite"),
           verify_sql),
    Domain("choice", load_template("generate_math"), _QA_STOP, math_answer, verify_choice),
)}


def domain(name: str) -> Domain:
    """The registered domain `name`; the one error for an unknown one, listing `DOMAINS`."""
    try:
        return DOMAINS[name]
    except KeyError:
        raise ValueError(f"unknown domain '{name}': no validator, answer format or prompt template; known: "
                         f"{', '.join(DOMAINS)}") from None
