"""Canonical records: Problem -> Trace -> StepLabels, and a Pool of traces per problem (docs/formats.md).
`from_dict` validates types and values and raises `RecordError` naming the field."""

from __future__ import annotations

import math
from dataclasses import MISSING, asdict, dataclass, field, fields
from typing import Any

__all__ = ["Pool", "PrefixPair", "Problem", "RecordError", "StepLabels", "Trace", "check_score_record"]


class RecordError(ValueError):
    """A record that does not have the fields and types its class requires."""


_TYPES: dict[str, tuple[type, ...]] = {
    "str": (str,), "str | None": (str, type(None)), "bool | None": (bool, type(None)),
    "float | None": (int, float, type(None)), "float": (int, float), "int": (int,), "dict[str, Any]": (dict,),
    "list[str]": (list,), "list[float]": (list,), "list[int]": (list,), "list[Trace]": (list,), "Problem": (dict,)}


def _check(cls: type, data: Any) -> dict[str, Any]:
    """Validate `data` against the dataclass `cls`; return it, the kwargs to build one."""
    if not isinstance(data, dict):
        raise RecordError(f"{cls.__name__}: expected a JSON object, got {type(data).__name__}")
    known = {f.name for f in fields(cls)}
    if unknown := sorted(set(data) - known):
        raise RecordError(f"{cls.__name__}: unknown field '{unknown[0]}' (fields: {', '.join(sorted(known))})")
    for f in fields(cls):
        if f.name not in data:
            if f.default is not MISSING or f.default_factory is not MISSING:
                continue
            raise RecordError(f"{cls.__name__}: missing field '{f.name}'")
        value, kind = data[f.name], str(f.type)
        numeric, numbers = kind in ("float | None", "float", "int"), kind in ("list[float]", "list[int]")
        if not isinstance(value, _TYPES[kind]) or (isinstance(value, bool) and numeric):
            raise RecordError(f"{cls.__name__}: field '{f.name}' must be {f.type}, got {type(value).__name__}")
        if kind == "list[str]" and not all(isinstance(v, str) for v in value):
            raise RecordError(f"{cls.__name__}: field '{f.name}' must be a list of strings")
        if numbers and not all(isinstance(v, int | float) and not isinstance(v, bool) for v in value):
            raise RecordError(f"{cls.__name__}: field '{f.name}' must be a list of numbers")
        if kind == "list[int]" and not all(isinstance(v, int) or float(v).is_integer() for v in value):
            raise RecordError(f"{cls.__name__}: field '{f.name}' must be a list of integers")
        if numeric or numbers:
            _finite(cls.__name__, f.name, value)
    return data


def _finite(kind: str, name: str, value: Any) -> None:
    """A RecordError when a number (or a number of a list) is NaN or infinite."""
    for k, v in enumerate(value if isinstance(value, list) else [value]):
        if isinstance(v, float) and not math.isfinite(v):
            where = f"{name}[{k}]" if isinstance(value, list) else name
            raise RecordError(f"{kind}: field '{where}' is {v} (scores must be finite numbers)")


class _Record:
    def to_dict(self) -> dict[str, Any]:
        return asdict(self)  # type: ignore[call-overload]

    @classmethod
    def from_dict(cls, data: Any):
        record = cls(**_check(cls, data))
        record._check_values()
        return record

    def _check_values(self) -> None:
        """A RecordError for a value its type allows but the record does not (`from_dict` calls it)."""


@dataclass
class Problem(_Record):
    """A question with its reference answer (y*) and, optionally, a reference solution."""

    id: str
    question: str
    answer: str
    solution: str | None = None
    domain: str = "math"
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass
class Trace(_Record):
    """One step-delimited chain of thought R = (r_1..r_N) for a problem, with its extracted answer."""

    id: str
    problem_id: str
    steps: list[str]
    answer: str | None
    correct: bool | None = None
    source: str = ""

    def _check_values(self) -> None:
        if (k := next((k for k, s in enumerate(self.steps) if not s.strip()), None)) is not None:
            raise RecordError(f"Trace {self.id}: step {k + 1} (of {len(self.steps)}) is empty; a step is text "
                              "(remove the empty step, or the trace)")


@dataclass
class StepLabels(_Record):
    """Per-step raw scores of one trace under a labeling method, and the binary labels at `threshold`."""

    trace_id: str
    method: str
    scores: list[float]
    labels: list[int] = field(default_factory=list)
    threshold: float | None = None
    params: dict[str, Any] = field(default_factory=dict)
    correct: bool | None = None
    problem_id: str = ""
    # cost ledger (docs/formats.md); left out of the JSON line when empty
    cost: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        if not data["cost"]:
            del data["cost"]
        return data

    def _check_values(self) -> None:
        if bad := next((v for v in self.labels if v not in (0, 1)), None):
            raise RecordError(f"StepLabels {self.trace_id}: labels must be 0 or 1, got {bad}")
        if self.labels and len(self.labels) != len(self.scores):
            raise RecordError(f"StepLabels {self.trace_id}: {len(self.scores)} scores but {len(self.labels)} labels")


@dataclass
class Pool(_Record):
    """A problem and its candidate traces: the unit of labeling (I_0 and the answer sets are per problem)."""

    problem: Problem
    traces: list[Trace]
    origin: str = field(default="", compare=False, repr=False)  # "file:line" it was read from; never written

    def to_dict(self) -> dict[str, Any]:
        return {"problem": self.problem.to_dict(), "traces": [t.to_dict() for t in self.traces]}

    @classmethod
    def from_dict(cls, data: Any) -> Pool:
        kw = _check(cls, data)
        traces = []
        for k, t in enumerate(kw["traces"]):
            try:
                traces.append(Trace.from_dict(t))
            except RecordError as e:
                raise RecordError(f"traces[{k}]: {e}") from None
        try:
            problem = Problem.from_dict(kw["problem"])
        except RecordError as e:
            raise RecordError(f"problem: {e}") from None
        seen: set[str] = set()
        for k, t in enumerate(traces):
            if t.problem_id != problem.id:
                raise RecordError(f"traces[{k}]: trace {t.id!r} has problem_id {t.problem_id!r}, not its pool's "
                                  f"problem {problem.id!r}")
            if t.id in seen:
                raise RecordError(f"traces[{k}]: trace id {t.id!r} repeats an earlier trace of problem {problem.id!r}")
            seen.add(t.id)
        return cls(problem=problem, traces=traces, origin=kw.get("origin", ""))


@dataclass
class PrefixPair(_Record):
    """A PUM preference between two prefixes of one problem (pum_paper sec 3.3, A.4); fields in docs/formats.md."""

    problem_id: str
    question: str
    prefix_a: list[str]
    prefix_b: list[str]
    label: int
    id_a: str
    id_b: str
    kind: str = ""  # vertical | horizontal
    within_model: bool | None = None  # both trajectories from the same generator
    utility_a: float | None = None  # G_intr of each prefix (mean normalised gain)
    utility_b: float | None = None
    d_mean: float | None = None  # d̄ over the valid students
    margin: float | None = None  # ε = max(ε_global, ε_floor)
    conflict: float | None = None  # ρ
    students: list[str] = field(default_factory=list)  # the valid students

    def _check_values(self) -> None:
        if self.label not in (1, 0, -1):
            raise RecordError(f"PrefixPair: label must be 1, 0 or -1, got {self.label}")
        if not self.prefix_a or not self.prefix_b:
            raise RecordError("PrefixPair: prefix_a and prefix_b need at least one step")


_SCORE_FIELDS: dict[str, tuple[type, ...]] = {"id": (str,), "problem_id": (str,), "index": (int,),
                                             "answer": (str, type(None)), "correct": (bool, type(None)),
                                             "score": (int, float)}


def check_score_record(data: Any) -> dict[str, Any]:
    """A `prmkit score` line, validated (`score` and `step_scores` finite); raises RecordError naming the field."""
    if not isinstance(data, dict):
        raise RecordError(f"score record: expected a JSON object, got {type(data).__name__}")
    if missing := [k for k in _SCORE_FIELDS if k not in data]:
        raise RecordError(f"not a score record (no {', '.join(missing)}): score files are written by `prmkit score`")
    for name, allowed in _SCORE_FIELDS.items():
        value = data[name]
        if not isinstance(value, allowed) or (isinstance(value, bool) and name in ("index", "score")):
            names = " or ".join("null" if t is type(None) else t.__name__ for t in allowed)
            raise RecordError(f"score record: field '{name}' must be {names}, got {type(value).__name__} {value!r}")
    _finite("score record", "score", data["score"])
    steps = data.get("step_scores")
    if steps is not None:
        if not isinstance(steps, list) or not all(isinstance(v, int | float) and not isinstance(v, bool)
                                                  for v in steps):
            raise RecordError("score record: field 'step_scores' must be a list of numbers")
        _finite("score record", "step_scores", steps)
    return data
