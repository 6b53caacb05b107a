"""Multiple-choice validator: a letter, an option number or the option text ("B", "(b)", "Option 2", "blue")
normalised to an index of `meta["options"]`."""

import re
import string

from prmkit.data.records import Problem
from prmkit.verify.base import Verdict

__all__ = ["choice_index", "verify_choice"]

# "B", "(b)", "Option 2", "the answer is B": a letter or a 1-based number
_NAMED = re.compile(r"^(?:the\s+)?(?:answer|option|choice)?\s*(?:is\s*)?[:\s]*[(\[]?([A-Za-z]|\d+)[)\].:]?$", re.I)


def _norm(text: str) -> str:
    text = text.strip().strip("$").strip()
    text = re.sub(r"\\(?:text|textbf|mathrm)\{([^{}]*)\}", r"\1", text)
    return " ".join(text.lower().strip(string.punctuation + " ").split())


def choice_index(text: str, options: list[str]) -> int | None:
    """The 0-based option index that `text` names, or None when it names none (or is ambiguous)."""
    raw = _norm(text)
    texts = [_norm(o) for o in options]
    if raw in texts:
        return texts.index(raw)
    if (m := _NAMED.match(raw)) and len(raw) <= 20:
        name = m.group(1)
        k = int(name) - 1 if name.isdigit() else ord(name.lower()) - ord("a")
        return k if 0 <= k < len(options) else None
    hits = [k for k, t in enumerate(texts) if t and re.search(rf"\b{re.escape(t)}\b", raw)]
    return hits[0] if len(hits) == 1 else None


def verify_choice(problem: Problem, answer: str) -> Verdict:
    """V_q(y) for a multiple-choice problem (`meta["options"]`, gold in `problem.answer`)."""
    options = problem.meta.get("options")
    if not isinstance(options, list) or not options:
        return Verdict(False, "problem has no meta['options']")
    gold = choice_index(problem.answer, options)
    if gold is None:
        return Verdict(False, f"gold answer {problem.answer!r} names no option")
    pred = choice_index(answer, options)
    if pred is None:
        return Verdict(False, f"{answer.strip()[:60]!r} names no option")
    letters = string.ascii_uppercase
    return Verdict(pred == gold, f"chose {letters[pred]}, correct is {letters[gold]}")
