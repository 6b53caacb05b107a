"""A payoff row trained with several seeds (`NAME#sN`): the gain over majority voting with intervals over problems and
over problems and seeds, and the rows ranked with them (docs/payoff.md, "Training seeds")."""

import itertools
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from prmkit.evaluate.stats import bootstrap_ci, percentile_interval

__all__ = ["INTERVAL", "format_seeds", "joint_interval", "row_group", "row_seed", "seed_report", "seed_summary"]

SEED_MARK = re.compile(r"#s(\d+)")
INTERVAL = ("bootstrap over problems and training seeds jointly: each resample draws the problems and, for each "
            "row, its seeds with replacement (95% percentile interval)")
SELECTORS = {"weighted": "weighted:", "best": ""}  # the table's two uses of a row: weighted voting, best-of-K


def row_group(name: str) -> str:
    """The row a seed's row belongs to: its name without the `#sN` mark."""
    return SEED_MARK.sub("", name)


def row_seed(row: dict[str, Any]) -> int:
    """A row's training seed: `row.json`'s `seed`, else its name's `#sN`, else 0; the two must agree."""
    named, recorded = SEED_MARK.search(row["name"]), row.get("seed")
    if named and recorded is not None and int(named[1]) != recorded:
        raise ValueError(f"row {row['name']!r}: its name says seed {named[1]}, its row.json seed {recorded}")
    return int(recorded if recorded is not None else named[1] if named else 0)


def _groups(read: Sequence[dict[str, Any]]) -> dict[str, dict[int, str]]:
    """{row: {seed: the seed's row name}}, in the rows' order."""
    out: dict[str, dict[int, str]] = {}
    for r in read:
        seeds = out.setdefault(row_group(r["name"]), {})
        if (s := row_seed(r)) in seeds:
            raise ValueError(f"rows {seeds[s]!r} and {r['name']!r} are one row with one seed ({s}): give each seed "
                             "its own `#sN` name and `--seed`")
        seeds[s] = r["name"]
    return out


def joint_interval(blocks: Sequence[np.ndarray], signs: Sequence[float], n_boot: int = 1000, seed: int = 0
                   ) -> tuple[float, float]:
    """95% interval of sum_g sign_g * mean(blocks[g]) (each block (seeds, problems), the problems shared): a two-way
    bootstrap resampling the problems once for all blocks and each block's seeds on its own."""
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, blocks[0].shape[1], size=(n_boot, blocks[0].shape[1]))  # (B, P)
    stats = np.zeros(n_boot)
    for sign, d in zip(signs, blocks, strict=True):
        by_seed = d[:, draws].mean(axis=2).T  # (B, S): each seed's mean over the drawn problems
        picks = rng.integers(0, d.shape[0], size=(n_boot, d.shape[0]))  # (B, S)
        stats += sign * np.take_along_axis(by_seed, picks, axis=1).mean(axis=1)
    return percentile_interval(stats)


def _cell(d: np.ndarray, n_boot: int, seed: int) -> dict[str, Any]:
    lo, hi = bootstrap_ci(d.mean(axis=0), n_boot, seed)
    slo, shi = joint_interval([d], [1.0], n_boot, seed)
    return {"mean": float(d.mean()), "over_problems": [lo, hi], "over_seeds": [slo, shi],
            "per_seed": [float(v) for v in d.mean(axis=1)]}


def seed_report(read: Sequence[dict[str, Any]], values: dict[tuple[str, int], np.ndarray], ks: Sequence[int],
                n_boot: int = 1000, seed: int = 0) -> dict[str, Any] | None:
    """Per row of several seeds and per untrained row, the gain over majority voting at each K >= 2 (the mean over seeds
    and problems: d = [[0, 1], [1, 1]] gives 0.75) with both intervals, and the rows ranked at the largest K; None
    when no row has two seeds. `values`: `bok_report`'s per-problem accuracies."""
    groups = _groups(read)
    if all(len(s) < 2 for s in groups.values()):
        return None
    untrained = {row_group(r["name"]) for r in read if r["train"].get("examples") == 0}
    groups = {g: s for g, s in groups.items() if len(s) > 1 or g in untrained}
    gains: dict[tuple[str, str, int], np.ndarray] = {
        (g, sel, k): np.stack([values[(f"{pre}{name}", k)] - values[("majority", k)] for name in seeds.values()])
        for g, seeds in groups.items() for sel, pre in SELECTORS.items() for k in ks}
    rows = [{"row": g, "seeds": sorted(seeds), "untrained": g in untrained, "k": k}
            | {sel: _cell(gains[(g, sel, k)], n_boot, seed) for sel in SELECTORS}
            for g, seeds in groups.items() for k in ks if k >= 2]
    top, ranking = max(ks), []
    for sel in SELECTORS:
        order = sorted(groups, key=lambda g: -gains[(g, sel, top)].mean())
        for hi_row, lo_row in itertools.pairwise(order):
            a, b = gains[(hi_row, sel, top)], gains[(lo_row, sel, top)]
            ranking.append({"selector": sel, "k": top, "higher": hi_row, "lower": lo_row,
                            "difference": float(a.mean() - b.mean()),
                            "over_seeds": list(joint_interval([a, b], [1.0, -1.0], n_boot, seed))})
    return {"interval": INTERVAL, "rows": rows, "ranking": ranking}


def seed_summary(seeds: dict[str, Any] | None, read: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """A summary row per (row of several seeds, K): best-of-K and weighted voting minus majority voting [point, lo, hi]
    over problems, and `..._over_seeds` over problems and seeds."""
    if not seeds:
        return []
    first = {row_group(r["name"]): r for r in reversed(read)}
    out = []
    for row in seeds["rows"]:
        if len(row["seeds"]) < 2:
            continue
        r, cells = first[row["row"]], {}
        for sel, key in (("best", "bon_minus_majority"), ("weighted", "weighted_minus_majority")):
            c = row[sel]
            cells[key] = [round(v, 4) for v in (c["mean"], *c["over_problems"])]
            cells[f"{key}_over_seeds"] = [round(v, 4) for v in (c["mean"], *c["over_seeds"])]
            cells[f"{key}_per_seed"] = [round(v, 4) for v in c["per_seed"]]
        out.append({"row": row["row"], "labels": r["labeler"], "head": r["kind"], "seeds": row["seeds"],
                    "aggregation": r["aggregation"] or "as scored", "train_problems": r.get("train_problems"),
                    "k": row["k"], **cells, "interval_over_seeds": seeds["interval"]})
    return out


def format_seeds(seeds: dict[str, Any]) -> list[str]:
    """Markdown: a line per (row, K) with both intervals and the per-seed means, then the ranking."""
    from prmkit.evaluate.stats import signed_points

    pts = lambda c, key: signed_points(c["mean"], *c[key])  # noqa: E731
    per = lambda c: ", ".join(f"{100 * v:+.1f}" for v in c["per_seed"])  # noqa: E731
    lines = ["", f"Training seeds: the intervals over seeds are a {seeds['interval']}.", "",
             "| row | seeds | K | weighted minus majority: over problems | over problems and seeds | per seed | "
             "best-of-K minus majority: over problems | over problems and seeds | per seed |", "|---" * 9 + "|"]
    for r in seeds["rows"]:
        w, b = r["weighted"], r["best"]
        seeds_cell = "untrained" if r["untrained"] else len(r["seeds"])
        lines.append(f"| {r['row']} | {seeds_cell} | {r['k']} | {pts(w, 'over_problems')} | {pts(w, 'over_seeds')} |"
                     f" {per(w)} | {pts(b, 'over_problems')} | {pts(b, 'over_seeds')} | "
                     f"{per(b)} |")
    lines += ["", "| ranking | K | higher | lower | difference (over problems and seeds) |", "|---" * 5 + "|"]
    lines += [f"| {'weighted voting' if q['selector'] == 'weighted' else 'best-of-K'} | {q['k']} | {q['higher']} | "
              f"{q['lower']} | {signed_points(q['difference'], *q['over_seeds'])} |" for q in seeds["ranking"]]
    return lines
