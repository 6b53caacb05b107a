"""Labeled step data of other tools (TRL, Math-Shepherd, PRM800K, OpenR OmegaPRM) as (Pool, StepLabels) pairs, one
trace per record, scores in each format's own values (docs/formats.md)."""

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from prmkit.data.jsonl import DataError, iter_input
from prmkit.data.records import Pool, StepLabels
from prmkit.data.steplevel import prm800k_trajectory, shepherd_steps
from prmkit.data.trl import labeled_pair, read_trl, read_trl_parquet

__all__ = ["LABELED_READERS", "LABELED_SIGNATURES", "detect_labeled_format", "iter_records", "read_labeled",
           "read_math_shepherd_labels", "read_omegaprm", "read_prm800k_labels"]

Pair = tuple[Pool, StepLabels]


def iter_records(path: str | os.PathLike[str]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(place, object) of an input file: `file:line`, or `file:record N` in a `.json` file."""
    record = "record " if Path(path).suffix == ".json" else ""
    for n, obj in iter_input(path):
        yield f"{path}:{record}{n}", obj


def read_math_shepherd_labels(path: str | os.PathLike[str]) -> Iterator[Pair]:
    """Math-Shepherd lines with every step's `+`/`-` kept: label 1/0, score the same."""
    for k, (lineno, obj) in enumerate(iter_input(path)):
        question, steps, tags = shepherd_steps(path, lineno, obj)
        labels = [1 if t == "+" else 0 for t in tags]
        yield labeled_pair("math-shepherd", f"{path}:{lineno}", f"math-shepherd-{k}", question, "", steps,
                           [float(v) for v in labels], labels, meta={"task": obj.get("task")})


def read_prm800k_labels(path: str | os.PathLike[str]) -> Iterator[Pair]:
    """PRM800K lines with every step's rating (-1/0/1) as its score; label 0 for -1, else 1."""
    for lineno, obj in iter_input(path):
        where = f"{path}:{lineno}"
        question, texts, ratings = prm800k_trajectory(path, lineno, obj)
        if bad := [i for i, r in enumerate(ratings) if r not in (-1, 0, 1)]:
            raise DataError(f"{where}: step {bad[0]} has rating {ratings[bad[0]]!r}; ratings are -1, 0 or 1")
        yield labeled_pair("prm800k", where, f"prm800k-{lineno}", question["problem"],
                           str(question.get("ground_truth_answer") or ""), texts, [float(r) for r in ratings],
                           [0 if r == -1 else 1 for r in ratings], question.get("pre_generated_answer"),
                           {"finish_reason": obj["label"].get("finish_reason")})


def _mc(where: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0.0 <= value <= 1.0:
        raise DataError(f"{where}: mc_value must be a number in [0, 1], got {value!r}")
    return float(value)


def _tree_paths(where: str, node: dict[str, Any], path: list[tuple[str, float]]) -> Iterator[list[tuple[str, float]]]:
    """Root-to-leaf paths of OpenR's tree (`{text, mc_value, children}`), the root (the question) left out."""
    children = node.get("children") or []
    if not isinstance(children, list):
        raise DataError(f"{where}: 'children' must be a list")
    if not children:
        if path:
            yield path
        return
    for child in children:
        if not (isinstance(child, dict) and isinstance(child.get("text"), str)):
            raise DataError(f"{where}: a tree node needs 'text' and 'mc_value'")
        yield from _tree_paths(where, child, [*path, (child["text"].strip(), _mc(where, child.get("mc_value")))])


def _parent(prefix: str, nodes: dict[str, float], root: str) -> str:
    """The longest other measured prefix that `prefix` extends by `\\n\\n` + text, else `root`, one lookup per
    separator: "Q\\n\\na\\n\\nb" with "Q\\n\\na" measured -> "Q\\n\\na", unmeasured -> "Q"."""
    end = len(prefix)
    while (cut := prefix.rfind("\n\n", 0, end)) > 0:
        if (head := prefix[:cut]) != root and head in nodes:
            return head
        end = cut + 1  # a separator that starts one character earlier ("\\n\\n\\n") is still a candidate
    return root


def _flat_paths(where: str, question: str, items: list[Any]) -> Iterator[list[tuple[str, float]]]:
    """Root-to-leaf paths of OpenR's flat list of (solution_prefix, mc_value), the question the root."""
    nodes: dict[str, float] = {}
    for k, item in enumerate(items):
        if not (isinstance(item, dict) and isinstance(item.get("solution_prefix"), str)):
            raise DataError(f"{where}: reasoning_steps[{k}] needs 'solution_prefix' and 'mc_value'")
        nodes[item["solution_prefix"].strip()] = _mc(f"{where}: reasoning_steps[{k}]", item.get("mc_value"))
    root = question.strip()
    parent = {p: _parent(p, nodes, root) for p in nodes if p != root}
    for p, up in parent.items():
        if up == root and not p.startswith(root):
            raise DataError(f"{where}: a solution_prefix does not start with the question")
    leaves = set(parent) - set(parent.values())
    for leaf in [p for p in nodes if p in leaves]:  # in file order
        chain, p = [], leaf
        while p != root:
            chain.append((p[len(parent[p]):].strip(), nodes[p]))
            p = parent[p]
        yield chain[::-1]


def read_omegaprm(path: str | os.PathLike[str]) -> Iterator[Pair]:
    """OpenR OmegaPRM records: one trace per leaf, the MC value the score, label 1 when it is above 0."""
    for where, obj in iter_records(path):
        question, steps = obj.get("question"), obj.get("reasoning_steps")
        if not isinstance(question, str):
            raise DataError(f"{where}: field 'question' missing or not a string")
        if isinstance(steps, list):
            paths = list(_flat_paths(where, question, steps))
        elif isinstance(steps, dict):
            paths = list(_tree_paths(where, steps, []))
        else:
            raise DataError(f"{where}: field 'reasoning_steps' must be a list of prefixes or a tree")
        base = where.replace(f"{path}:", "").replace("record ", "r")
        for n, chain in enumerate(paths):
            texts, values = [t for t, _ in chain], [v for _, v in chain]
            yield labeled_pair("omegaprm", where, f"omegaprm-{base}-{n}", question,
                               str(obj.get("final_answer") or ""), texts, values, [1 if v > 0 else 0 for v in values])


LABELED_READERS: dict[str, Callable[[str | os.PathLike[str]], Iterator[Pair]]] = {
    "trl": read_trl, "trl-parquet": read_trl_parquet, "math-shepherd": read_math_shepherd_labels,
    "prm800k": read_prm800k_labels, "omegaprm": read_omegaprm}
# name -> the keys its first record has (checked in this order; parquet is told by its suffix)
LABELED_SIGNATURES: list[tuple[str, set[str]]] = [
    ("trl", {"prompt", "completions", "labels"}), ("omegaprm", {"question", "reasoning_steps"}),
    ("prm800k", {"question", "label"}), ("math-shepherd", {"input", "label"})]


def detect_labeled_format(path: str | os.PathLike[str],
                          signatures: list[tuple[str, set[str]]] = LABELED_SIGNATURES) -> str | None:
    """The format of `path`: `trl-parquet` for the suffix `.parquet`, else the first name of `signatures` whose keys
    its first record has; None when none fits."""
    if not os.path.isfile(path):
        raise FileNotFoundError(f"input file not found: {path}")
    if Path(path).suffix == ".parquet":
        return "trl-parquet"
    for _, obj in iter_records(path):
        return next((name for name, keys in signatures if keys <= obj.keys()), None)
    raise DataError(f"{path}: no records")


def read_labeled(path: str | os.PathLike[str], fmt: str = "auto") -> Iterator[Pair]:
    """(Pool, StepLabels) pairs of a labeled-data file in `fmt` (or detected)."""
    name = detect_labeled_format(path) if fmt == "auto" else fmt
    if name not in LABELED_READERS:
        raise DataError(f"{path}: not labeled step data; formats: {', '.join(LABELED_READERS)} "
                        "(or give --pools with a StepLabels file)")
    return LABELED_READERS[name](path)
