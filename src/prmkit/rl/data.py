"""Problems -> the GRPO dataset: one row per problem with the prompt the policy sees and the problem itself."""

from typing import Any

from prmkit.data.records import Problem
from prmkit.data.settings import parse_range
from prmkit.generate.prompts import build_prompt, in_chat_template
from prmkit.generate.sources import load_problems
from prmkit.rewards.completions import problem_column

__all__ = ["grpo_rows", "select_problems"]


def select_problems(data: str, range_text: str | None) -> list[Problem]:
    """The problems of `data` (demo or a JSONL file, see `generate.sources`) in `range_text` ('0:40')."""
    problems = load_problems(data)[parse_range(range_text)]
    if not problems:
        raise ValueError(f"no problems in {data!r} range {range_text!r}")
    return problems


def grpo_rows(problems: list[Problem], tokenizer: Any, chat: bool = True,
              template: str | None = None) -> list[dict[str, str]]:
    """Dataset rows {prompt, problem}: `prmkit generate`'s prompt in the policy's chat template, and the Problem's JSON
    that reward functions read; `template`: a template text (None: the domain's). A row, shortened:
    {"prompt": "<|im_start|>system\\nSolve the problem step by step ...<|im_start|>assistant\\n",
     "problem": "{\\"id\\": \\"demo-0-3\\", \\"question\\": \\"Mia has 4 boxes ...\\", \\"answer\\": \\"23\\", ...}"}"""
    return [{"prompt": in_chat_template(tokenizer, build_prompt(p, template), chat), "problem": problem_column(p)}
            for p in problems]
