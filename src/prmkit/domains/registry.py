"""What a domain is: one `Domain` record per problem kind in `DOMAINS`; `VALIDATORS`, `EXTRACTORS` and `STOP` are
read-only views of one field each (`DomainField`)."""

import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from prmkit.data.records import Problem
from prmkit.data.templates import load_template
from prmkit.domains.answers import choice_answer, fenced_answer, math_answer, split_steps
from prmkit.verify.base import Validator, Verdict
from prmkit.verify.choice import verify_choice
from prmkit.verify.math import verify_math
from prmkit.verify.python import verify_python
from prmkit.verify.sql import verify_sql

__all__ = ["DOMAINS", "EXTRACTORS", "STOP", "VALIDATORS", "Domain", "DomainField", "choice_text", "code_stub", "domain",
           "extract_answer", "get_validator", "parse_completion", "question_text", "verify_answer", "verify_answers"]


def question_text(problem: Problem) -> str:
    """The question as a prompt shows it: `problem.question` without trailing whitespace."""
    return problem.question.rstrip()


def code_stub(problem: Problem) -> str:
    """A code problem shows its function stub (`meta["prompt"]`, as HumanEval gives it; else the question),
    unstripped: the completion continues the stub's indentation."""
    return problem.meta.get("prompt", problem.question)


def choice_text(problem: Problem) -> str:
    """A multiple-choice question with its options (`meta["options"]`) listed under it as "A. ...", "B. ...",
    unless the question shows every option's text already."""
    question, options = question_text(problem), problem.meta.get("options")
    if not isinstance(options, list) or all(str(o).strip() in question for o in options):
        return question
    return "\n".join([question, *(f"{chr(ord('A') + k)}. {str(o).strip()}" for k, o in enumerate(options))])


@dataclass(frozen=True)
class Domain:
    """One kind of problem. `template`: the few-shot prompt text with `{question}` (and, for SQL, `{schema}`);
    `stop`: strings that end a completion (the model starting the next few-shot item); `extract`: completion text ->
    final answer or None; `validator`: V_q(y) of the MCNIG paper, sec. 3.1; `prompt_text`: what fills `{question}`."""

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
    Domain("choice", load_template("generate_math"), _QA_STOP, choice_answer, verify_choice, choice_text),
)}


def domain(name: str) -> Domain:
    """The registered domain `name`; the one error for an unknown one, listing `DOMAINS`."""
    try:
        return DOMAINS[name]
    except KeyError:
        raise ValueError(f"unknown domain '{name}': no validator, answer format or prompt template; known: "
                         f"{', '.join(DOMAINS)}") from None


class DomainField(Mapping[str, Any]):
    """The view `name -> DOMAINS[name].<field>`, looked up on every access: `DomainField("validator")["math"]`."""

    def __init__(self, field: str):
        self.field = field

    def __getitem__(self, name: str) -> Any:
        return getattr(DOMAINS[name], self.field)

    def __iter__(self) -> Iterator[str]:
        return iter(DOMAINS)

    def __len__(self) -> int:
        return len(DOMAINS)

    def __repr__(self) -> str:
        return f"DomainField({self.field!r}, {dict(self)!r})"


VALIDATORS: Mapping[str, Validator] = DomainField("validator")
EXTRACTORS: Mapping[str, Callable[[str], str | None]] = DomainField("extract")
STOP: Mapping[str, tuple[str, ...]] = DomainField("stop")


def get_validator(name: str) -> Validator:
    return domain(name).validator


def verify_answer(problem: Problem, answer: str | None) -> Verdict:
    """V_q(y) with the validator of `problem.domain`; a missing answer is a failed verdict."""
    if answer is None:
        return Verdict(False, "no extractable answer")
    return get_validator(problem.domain)(problem, answer)


def verify_answers(pairs: Sequence[tuple[Problem, str | None]], workers: int | None = None) -> list[Verdict]:
    """Validate many (problem, answer) pairs in parallel threads (code runs in sandboxed subprocesses)."""
    workers = workers or os.cpu_count() or 1
    if workers <= 1 or len(pairs) <= 1:
        return [verify_answer(p, a) for p, a in pairs]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(lambda pa: verify_answer(*pa), pairs))


def extract_answer(name: str, text: str) -> str | None:
    """The final answer of `text` in the format of domain `name`, None when it has none."""
    return domain(name).extract(text)


def parse_completion(name: str, text: str) -> tuple[list[str], str | None]:
    """(steps, answer) of one completion in domain `name`'s format."""
    return split_steps(text), extract_answer(name, text)
