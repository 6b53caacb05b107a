"""Few-shot prompts with the `[STEP]` delimiter and each domain's final-answer format (MCNIG paper, sec. 3.1).

Templates are files in `prmkit/templates/generate_<domain>.txt` with `{question}` (and, for SQL, `{schema}`)
placeholders, filled by plain replacement so that braces in code and LaTeX need no escaping.
"""

from __future__ import annotations

import re
from typing import Any

from prmkit.data.records import Problem
from prmkit.data.templates import load_template

__all__ = ["STEP", "STOP", "build_prompt", "chat_messages", "domain_template", "in_chat_template"]

STEP = "[STEP]"
# where a completion ends: the model starting the next few-shot item
STOP: dict[str, tuple[str, ...]] = {
    "math": ("\nQuestion:", "\n\n\n"),
    "choice": ("\nQuestion:", "\n\n\n"),
    "python": ("\n### Problem", "\n### Schema"),
    "sql": ("\n### Schema", "\n### Problem"),
}
_TEMPLATE_OF = {
    "math": "generate_math.txt",
    "choice": "generate_math.txt",
    "python": "generate_python.txt",
    "sql": "generate_sql.txt",
}


def domain_template(domain: str) -> str:
    """The built-in few-shot template of a domain (through the one template loader, `prmkit.data.templates`)."""
    if domain not in _TEMPLATE_OF:
        raise ValueError(f"no prompt template for domain '{domain}'; known: {', '.join(_TEMPLATE_OF)}")
    return load_template(_TEMPLATE_OF[domain])


def build_prompt(problem: Problem, template: str | None = None) -> str:
    """The few-shot prompt for one problem (the question of a code problem is its function stub)."""
    text = template if template is not None else domain_template(problem.domain)
    question = (
        problem.meta.get("prompt", problem.question) if problem.domain == "python" else problem.question
    )
    text = text.replace("{schema}", _schema(problem))
    return text.replace("{question}", question.rstrip() if problem.domain != "python" else question)


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
