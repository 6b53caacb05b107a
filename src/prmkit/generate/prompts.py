"""Few-shot prompts with the `[STEP]` delimiter and each domain's answer format (MCNIG paper sec 3.1), filled by
plain replacement so that braces in code and LaTeX need no escaping."""

import re
from typing import Any

from prmkit.data.records import Problem
from prmkit.domains import DOMAINS, domain, question_text

__all__ = ["build_prompt", "chat_messages", "domain_template", "in_chat_template"]


def domain_template(name: str) -> str:
    """The built-in few-shot template of domain `name` (its `Domain.template`, `prmkit.domains`)."""
    return domain(name).template


def build_prompt(problem: Problem, template: str | None = None) -> str:
    """The few-shot prompt for one problem: `{question}` filled with its domain's `prompt_text` (a code problem
    shows its function stub), `{schema}` with its SQL schema. With a `template` of its own a problem of an
    unregistered domain shows its question."""
    text = template if template is not None else domain_template(problem.domain)
    spec = DOMAINS.get(problem.domain)
    text = text.replace("{schema}", _schema(problem))
    return text.replace("{question}", (spec.prompt_text if spec else question_text)(problem))


def _schema(problem: Problem) -> str:
    """The SQL schema shown in the prompt: `meta["schema"]`, else read from the database at `meta["db_path"]`."""
    if schema := str(problem.meta.get("schema", "")).strip():
        return schema
    if db := problem.meta.get("db_path"):
        from prmkit.verify.sql import read_schema

        return read_schema(db)
    return ""


_SHOT = re.compile(r"Question: (.*?)\nAnswer:(.*?)(?=\n\nQuestion: |\Z)", re.S)


def chat_messages(prompt: str) -> list[dict[str, str]] | None:
    """A `Question:/Answer:` few-shot prompt as chat turns (instruction -> system, shots -> user/assistant), which
    instruct models follow far better than raw text; None for prompts of another shape (code, SQL)."""
    head, sep, _ = prompt.partition("Question: ")
    shots = _SHOT.findall(prompt)
    if not sep or not shots or shots[-1][1].strip():
        return None
    messages = [{"role": "system", "content": head.strip()}] if head.strip() else []
    for question, answer in shots[:-1]:
        messages += [{"role": "user", "content": question.strip()}, {"role": "assistant", "content": answer.strip()}]
    return [*messages, {"role": "user", "content": shots[-1][0].strip()}]


def in_chat_template(tokenizer: Any, prompt: str, chat: bool = True) -> str:
    """`prompt` rendered in the tokenizer's chat template when `chat` is on, the tokenizer has a template and the
    prompt is a few-shot Q/A prompt (see `chat_messages`); otherwise `prompt` unchanged."""
    messages = chat_messages(prompt) if chat and getattr(tokenizer, "chat_template", None) else None
    if messages is None:
        return prompt
    return tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
