"""The table of `prmkit rl compare` (`compare.md`, and what the verb prints): one line per setting."""

import math
from typing import Any

from prmkit.evaluate.stats import pct, signed_points

__all__ = ["format_compare"]

_HEADER = ("setting", "seeds", "accuracy before -> after [min, max]", "greedy before -> after",
           "gain [95% CI, problems]", "minus baseline [95% CI, problems]", "minus baseline [95% CI, seeds]",
           "steps (tokens) to baseline's final", "generated tokens", "train s", "CPU s", "peak RSS GB",
           "answered before -> after", "steps a completion", "tokens a completion",
           "training: length; scorer / accuracy, first -> last")


def format_compare(result: dict[str, Any]) -> str:
    """The markdown table of a `compare_runs` result, under a line saying what its figures are."""
    lines = [f"held-out: {result['heldout_problems']} problems, step {result['step']}; baseline "
             f"{result['baseline']}, final accuracy {pct(result['baseline_final'])}; differences: the setting's mean "
             "over seeds minus the baseline's; intervals 95%, over problems (paired bootstrap) and over seeds "
             "(the seed as the unit)", "", "| " + " | ".join(_HEADER) + " |", "|" + "---|" * len(_HEADER)]
    for r in result["rows"]:
        lines.append("| " + " | ".join(_cells(r, result["training"][r["setting"]])) + " |")
    return "\n".join(lines)


def _cells(r: dict[str, Any], training: dict[str, Any]) -> list[str]:
    seeds = r["minus_baseline_seeds"]
    by_seeds = "-" if seeds is None else (f"{signed_points(seeds['mean'], seeds['low'], seeds['high'])} "
                                          f"{seeds['method']}")
    by_problems = "-" if r["minus_baseline"] is None else signed_points(
        r["minus_baseline"], r["minus_baseline_low"], r["minus_baseline_high"])
    reach = "not reached" if r["steps_to_baseline"] is None else f"{r['steps_to_baseline']:.1f}" + (
        "" if r["tokens_to_baseline"] is None else f" ({r['tokens_to_baseline']:,.0f})")
    return [r["setting"], _seeds(r), f"{pct(r['accuracy_before'])} -> {pct(r['accuracy'])} "
            f"[{pct(r['accuracy_min'])}, {pct(r['accuracy_max'])}]",
            f"{pct(r['greedy_accuracy_before'])} -> {pct(r['greedy_accuracy'])}",
            signed_points(r["gain"], r["gain_low"], r["gain_high"]), by_problems, by_seeds, reach,
            _mean(r["generated_tokens"]), _mean(r["train_seconds"]), _mean(r["cpu_seconds_this_run"]),
            _max(r["peak_rss_gb"]), f"{r['answered_before']:.2f} -> {r['answered']:.2f}",
            f"{r['steps_before']:.2f} -> {r['steps']:.2f}", f"{r['length_before']:.1f} -> {r['length']:.1f}",
            _training(training)]


def _seeds(r: dict[str, Any]) -> str:
    known = [s for s in r["seed_list"] if s is not None]
    return f"{r['seeds']} ({', '.join(map(str, known))})" if len(known) == r["seeds"] else str(r["seeds"])


def _mean(values: list[float | None]) -> str:
    there = [v for v in values if v is not None]
    return "-" if not there else f"{sum(there) / len(there):,.0f}" + ("" if len(there) == len(values) else "*")


def _max(values: list[float | None]) -> str:
    there = [v for v in values if v is not None]
    return "-" if not there else f"{max(there):.2f}"


def _training(training: dict[str, Any]) -> str:
    """'length 41.2 -> 38.0; pspo_wrs 0.41 / 0.38 -> 0.55 / 0.40' (first -> last training steps, mean over seeds)."""
    ends = training["first_last"]
    num = lambda v, f: "-" if v is None or math.isnan(v) else format(v, f)  # noqa: E731
    parts = [f"length {num(ends['length'][0], '.1f')} -> {num(ends['length'][1], '.1f')}"]
    for name in training["scorers"]:
        (s0, s1), (a0, a1) = ends[name], ends["accuracy"]
        parts.append(f"{name} {num(s0, '.2f')} / {num(a0, '.2f')} -> {num(s1, '.2f')} / {num(a1, '.2f')}")
    return "; ".join(parts)
