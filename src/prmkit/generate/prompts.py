"""Few-shot prompts with the `[STEP]` delimiter and each domain's final-answer format (MCNIG paper, sec. 3.1).

Templates are files in `prmkit/templates/generate_<domain>.txt` with `{question}` (and, for SQL, `{schema}`)
placeholders, filled by plain replacement so that braces in code and LaTeX need no escaping. Each domain's template,
stop strings and question text are fields of its `Domain` (`prmkit.domains`).
"""

from __future__ import annotations

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
    """A `Question:/Answer:` few-shot prompt as chat turns (instruction -> system, shots -> user/assistant).

    Instruct models follow the few-shot format far better in their own chat format (SmolLM2-135M-Instruct:
    `[STEP]` and `$...$` are used in most samples in chat form, rarely in raw text). Returns None for prompts
    of another shape (code, SQL), which stay raw text.
    """
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
