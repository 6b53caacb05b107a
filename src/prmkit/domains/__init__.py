"""The domains (math, python, sql, choice) in `DOMAINS`, the step delimiter and the answer extractors."""

from prmkit.domains.answers import STEP, choice_answer, fenced_answer, math_answer, split_steps
from prmkit.domains.registry import (
    DOMAINS,
    EXTRACTORS,
    STOP,
    VALIDATORS,
    Domain,
    DomainField,
    choice_text,
    code_stub,
    domain,
    extract_answer,
    get_validator,
    parse_completion,
    question_text,
    verify_answer,
    verify_answers,
)

__all__ = ["DOMAINS", "EXTRACTORS", "STEP", "STOP", "VALIDATORS", "Domain", "DomainField", "choice_answer",
           "choice_text", "code_stub", "domain", "extract_answer", "fenced_answer", "get_validator", "math_answer",
           "parse_completion", "question_text", "split_steps", "verify_answer", "verify_answers"]
