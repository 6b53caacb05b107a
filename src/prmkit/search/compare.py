"""Search methods compared on the same problems: accuracy with a 95% bootstrap interval, and each minus best-of-N
paired by problem (PUM sec 4.3, fig. 3, read with its uncertainty)."""

import os
from collections.abc import Collection, Mapping
from typing import Any

import numpy as np

from prmkit.data.jsonl import read_records
from prmkit.search.records import SearchResult

__all__ = ["compare_lines", "compare_methods"]


def compare_methods(outputs: Mapping[str, str | os.PathLike[str]], against: str | None = None, n_boot: int = 1000,
                    seed: int = 0, problems: Collection[str] | None = None) -> list[dict[str, Any]]:
    """One row per method over the problems every output holds (of `problems` alone when given): accuracy and
    majority-vote accuracy with 95% bootstrap intervals, generated tokens per problem, and each method's accuracy
    minus `against`'s with the interval of the paired difference."""
    from prmkit.evaluate.stats import bootstrap_ci  # evaluate's package imports torch: not at `prmkit --help`

    read = {name: {r.problem_id: r for r in read_records(path, SearchResult.from_dict)} for name, path in
            outputs.items()}
    if against is not None and against not in read:
        raise ValueError(f"baseline {against!r} is not one of the compared methods ({', '.join(read)})")
    common = sorted(set.intersection(*(set(r) for r in read.values()))) if read else []
    common = [p for p in common if problems is None or p in problems]
    if not common:
        raise ValueError("the search outputs share no problem: run the methods on the same --input")
    correct = {name: np.array([float(r[p].correct) for p in common]) for name, r in read.items()}
    rows = []
    for name, r in read.items():
        majority = np.array([float(r[p].majority_correct) for p in common])
        row: dict[str, Any] = {"method": name, "problems": len(common), "accuracy": float(correct[name].mean()),
                               "accuracy_ci": bootstrap_ci(correct[name], n_boot, seed),
                               "majority": float(majority.mean()), "majority_ci": bootstrap_ci(majority, n_boot, seed),
                               "tokens_per_problem": float(np.mean([r[p].tokens_generated for p in common]))}
        if against is not None and name != against:
            diff = correct[name] - correct[against]
            row |= {"against": against, "difference": float(diff.mean()), "difference_ci": bootstrap_ci(diff, n_boot,
                                                                                                      seed)}
        rows.append(row)
    return rows


def compare_lines(rows: list[dict[str, Any]]) -> list[str]:
    """The rows as printed lines (percentages, intervals in brackets)."""
    from prmkit.evaluate.stats import pct, signed_points  # evaluate's package imports torch: not at `prmkit --help`

    out = []
    for r in rows:
        lo, hi = r["accuracy_ci"]
        line = (f"{r['method']}: accuracy {pct(r['accuracy'])}% [{pct(lo)}, {pct(hi)}] on {r['problems']} problems, "
                f"majority vote {pct(r['majority'])}%, {r['tokens_per_problem']:.1f} generated tokens per problem")
        if "difference" in r:
            dlo, dhi = r["difference_ci"]
            line += f"; minus {r['against']} {signed_points(r['difference'], dlo, dhi, ' points')} paired by problem"
        out.append(line)
    return out
