"""A payoff row's kept file: its figures and step scores, gzipped, small enough for the repository to keep, from which
`prmkit payoff table` re-derives the row without a model (format: docs/formats.md, "Kept payoff row")."""

import gzip
import hashlib
import json
import os
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from prmkit.data.jsonl import iter_json, write_records
from prmkit.data.outputs import atomic_path
from prmkit.data.records import Pool

__all__ = ["KEPT_SUFFIX", "fresh_fingerprint", "is_kept", "keep_row", "kept_name", "kept_scores", "read_fresh",
           "read_kept"]

KEPT_SUFFIX = ".jsonl.gz"


def is_kept(spec: str | os.PathLike[str]) -> bool:
    """Whether a table row names a kept file (else a `prmkit payoff run` directory)."""
    return os.fspath(spec).endswith(KEPT_SUFFIX)


def kept_name(row_name: str) -> str:
    """A row's kept file name, what a file name should not hold made `_`: truth@600#s1 -> truth_600_s1.jsonl.gz."""
    return re.sub(r"[^A-Za-z0-9.+-]+", "_", row_name).strip("_") + KEPT_SUFFIX


def _json_lines(path: str | os.PathLike[str]) -> Iterator[dict[str, Any]]:
    if not os.fspath(path).endswith(".gz"):
        yield from (rec for _, rec in iter_json(path))
        return
    with gzip.open(path, "rt", encoding="utf-8") as f:
        yield from (json.loads(line) for line in f if line.strip())


def read_fresh(path: str | os.PathLike[str]) -> list[Pool]:
    """The fresh pools a row scored (`prmkit generate`'s output, gzipped or not)."""
    return [Pool.from_dict(rec) for rec in _json_lines(path)]


def fresh_fingerprint(pools: Sequence[Pool]) -> str:
    """What pins a fresh set: every sample's problem, id, answer and verdict, in order (16 hex digits of sha256)."""
    text = "\n".join(f"{p.problem.id}\t{t.id}\t{t.answer}\t{t.correct}" for p in pools for t in p.traces)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def keep_row(row: dict[str, Any], scores: str | os.PathLike[str], fresh: Sequence[Pool],
             dest: str | os.PathLike[str]) -> Path:
    """Write the kept file of `row` (a `row.json`) from its score file `scores` of the pools `fresh` to `dest` (a
    directory, or a file ending in `.jsonl.gz`); every fresh sample must be scored. Returns the file's path."""
    by_id = {rec["id"]: rec for _, rec in iter_json(scores)}
    aggregations = {rec.get("aggregation") for rec in by_id.values()}
    if len(aggregations) != 1:
        raise ValueError(f"{scores}: the trace scores are aggregated {len(aggregations)} ways; a kept row holds one")
    lines = []
    for pool in fresh:
        if missing := [t.id for t in pool.traces if t.id not in by_id]:
            raise ValueError(f"{scores}: fresh sample {missing[0]} is not scored; a kept row holds every one")
        lines.append({"problem_id": pool.problem.id, "step_scores": [by_id[t.id]["step_scores"] for t in pool.traces]})
    kinds = {rec.get("kind") for rec in by_id.values()}
    figures = {k: v for k, v in row.items() if k not in ("scores", "model", "fresh", "dir")}
    figures |= {"score_aggregation": aggregations.pop(), "score_kind": kinds.pop() if len(kinds) == 1 else None,
                "fresh": {"problems": len(fresh), "traces": sum(len(p.traces) for p in fresh),
                          "fingerprint": fresh_fingerprint(fresh)}}
    path = Path(dest) if is_kept(dest) else Path(dest, kept_name(row["name"]))
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(rec, separators=(",", ":")) + "\n" for rec in [{"row": figures}, *lines])
    with atomic_path(path) as tmp, open(tmp, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as gz:
        gz.write(text.encode("utf-8"))  # mtime 0: the same scores give the same bytes
    return path


def read_kept(path: str | os.PathLike[str]) -> tuple[dict[str, Any], dict[str, list[list[float]]]]:
    """(the row's figures, {problem id: the step scores of its samples in pool order}) of a kept file."""
    records = _json_lines(path)
    head = next(records, None)
    if not isinstance(head, dict) or not isinstance(head.get("row"), dict):
        raise ValueError(f"{path}: not a kept payoff row (its first line holds no 'row' figures)")
    return head["row"], {rec["problem_id"]: rec["step_scores"] for rec in records}


def kept_scores(figures: dict[str, Any], steps: dict[str, list[list[float]]], fresh: Sequence[Pool],
                path: str | os.PathLike[str], source: str = "the kept row") -> None:
    """Write the `prmkit score` file a kept row stands for to `path`: its step scores with the fresh pools' ids,
    answers and verdicts, re-aggregated as the row was; a ValueError for another fresh set."""
    from prmkit.models.aggregate import aggregate

    if (mine := figures["fresh"]["fingerprint"]) != fresh_fingerprint(fresh):
        raise ValueError(f"{source}: it scored another fresh set (fingerprint {mine}) than --fresh gives "
                         f"({fresh_fingerprint(fresh)}, {len(fresh)} problems)")
    how, kind = figures["score_aggregation"], figures.get("score_kind")
    write_records(path, ({"id": t.id, "problem_id": p.problem.id, "index": i, "answer": t.answer, "correct": t.correct,
                          "kind": kind, "step_scores": s, "aggregation": how, "score": aggregate(s, how)}
                         for p in fresh for i, (t, s) in enumerate(zip(p.traces, steps[p.problem.id], strict=True))))
