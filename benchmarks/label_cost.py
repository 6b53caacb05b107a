"""Token cost of MCNIG vs OmegaPRM vs Math-Shepherd on the same CoTs (MCNIG paper table 1 and appendix A).

Labels the pools with each method through the one recipe (append-only and resumable: stop it at any time and
re-run, or summarise what is done with --no-run), then reads the cost ledger on each record and prints:
- per method, over the CoTs every method has labeled: tokens read, tokens generated, their sum (as fed by our
  backends: each rollout prefix is prefilled anew), the "KV-cached" sum (prompt and CoT read once per CoT, the
  paper's assumption), the paper's appendix-A formula, and each one's ratio to MCNIG;
- the cost exponent b of tokens ~ N^b, fitted (least squares in log-log) over the mean tokens of CoTs binned by
  their step count N;
- CoT-level balanced accuracy at a held-out tau (chosen on the first half of the problems, final step excluded,
  reported on the second half), as `prmkit threshold --choose-on ... --apply-to ...` does.

    OMP_NUM_THREADS=1 python benchmarks/label_cost.py --pools runs/label_cost/pools.jsonl --out runs/label_cost \\
        --max-new-tokens 96 --backend ct2
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from prmkit.data.formats import read_pools
from prmkit.label import InformationConfig, LabelConfig, RolloutLabelConfig, label_pools
from prmkit.label.threshold import balanced_accuracy, cot_scores, sweep_threshold

METHODS = ("mcnig", "omegaprm", "math-shepherd")


def run(pools_path: str, out: Path, methods: list[str], rollouts: RolloutLabelConfig) -> dict[str, float]:
    """Label with each method in turn; wall seconds of each run (resumed work is not timed again)."""
    pools, wall = list(read_pools(pools_path)), {}
    for m in methods:
        start = time.perf_counter()
        label_pools(pools, LabelConfig(method=m), out / f"{m}.jsonl", [InformationConfig(), rollouts])
        wall[m] = time.perf_counter() - start
    return wall


def records(out: Path, method: str) -> dict[str, dict]:
    path = out / f"{method}.jsonl"
    return {(d := json.loads(line))["trace_id"]: d for line in open(path)} if path.is_file() else {}


def costs(rec: dict) -> dict[str, float]:
    c = rec["cost"]
    cached = c.get("tokens_read_cached", c["tokens_read"]) + c["tokens_generated"]
    return {"read": c["tokens_read"], "generated": c["tokens_generated"],
            "total": c["tokens_read"] + c["tokens_generated"], "cached": cached, "paper": c["paper_tokens"]}


def exponent(ns: list[int], tokens: list[float]) -> tuple[float, dict[int, float]]:
    """b of mean tokens ~ N^b over bins of equal N (bins with a zero mean or N < 2 are left out)."""
    bins: dict[int, list[float]] = defaultdict(list)
    for n, t in zip(ns, tokens, strict=True):
        bins[n].append(t)
    means = {n: float(np.mean(v)) for n, v in sorted(bins.items())}
    used = [(n, m) for n, m in means.items() if n >= 2 and m > 0]
    if len(used) < 2:
        return float("nan"), means
    x, y = np.log([n for n, _ in used]), np.log([m for _, m in used])
    return float(np.polyfit(x, y, 1)[0]), means


def held_out_bacc(recs: dict[str, dict], problem_order: list[str]) -> tuple[float, float, int, int]:
    """(tau chosen on the first half of the problems, balanced accuracy on the second half, n choose, n test)."""
    half = set(problem_order[: len(problem_order) // 2])
    choose = [r for r in recs.values() if r["problem_id"] in half]
    test = [r for r in recs.values() if r["problem_id"] not in half]
    if not choose or not test:
        return float("nan"), float("nan"), len(choose), len(test)
    tau = sweep_threshold([r["scores"] for r in choose], [bool(r["correct"]) for r in choose]).tau
    pred = cot_scores([r["scores"] for r in test]) > tau
    return tau, balanced_accuracy(pred, np.asarray([bool(r["correct"]) for r in test])), len(choose), len(test)


def summary(out: Path, methods: list[str], problem_order: list[str]) -> None:
    recs = {m: records(out, m) for m in methods}
    common = sorted(set.intersection(*(set(r) for r in recs.values()))) if recs else []
    print(f"CoTs labeled by every method: {len(common)} of {[len(r) for r in recs.values()]}")
    if not common:
        return
    totals = {m: {k: sum(costs(recs[m][t])[k] for t in common) for k in costs(recs[m][common[0]])} for m in methods}
    base = totals.get("mcnig")
    print("| method | read | generated | total | KV-cached | paper formula | total / MCNIG | cached / MCNIG | "
          "paper / MCNIG | exponent b (total) | exponent b (paper) |")
    print("|---|" + "---:|" * 10)
    for m in methods:
        t, ns = totals[m], [recs[m][x]["cost"]["steps"] for x in common]
        b_total, _ = exponent(ns, [costs(recs[m][x])["total"] for x in common])
        b_paper, _ = exponent(ns, [costs(recs[m][x])["paper"] for x in common])
        ratio = {k: t[k] / base[k] if base and base[k] else float("nan") for k in ("total", "cached", "paper")}
        print(f"| {m} | {t['read']:,.0f} | {t['generated']:,.0f} | {t['total']:,.0f} | {t['cached']:,.0f} | "
              f"{t['paper']:,.0f} | {ratio['total']:.2f} | {ratio['cached']:.2f} | {ratio['paper']:.2f} | "
              f"{b_total:.2f} | {b_paper:.2f} |")
    print("\nmean total tokens per CoT by step count N:")
    for m in methods:
        _, means = exponent([recs[m][x]["cost"]["steps"] for x in common], [costs(recs[m][x])["total"] for x in common])
        print(f"  {m}: " + ", ".join(f"N={n}: {v:,.0f}" for n, v in means.items()))
    print("\n| method | CoTs | tau (first half) | held-out balanced accuracy (second half) | n choose / n test |")
    print("|---|---:|---:|---:|---:|")
    for m in methods:
        tau, bacc, n_choose, n_test = held_out_bacc(recs[m], problem_order)
        print(f"| {m} | {len(recs[m])} | {tau:.3g} | {bacc:.3f} | {n_choose} / {n_test} |")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--pools", required=True, help="pool file (e.g. GSM8K candidates in prmkit pools)")
    p.add_argument("--out", required=True, help="folder for <method>.jsonl")
    p.add_argument("--methods", default=",".join(METHODS))
    p.add_argument("--rollouts", type=int, default=8, help="M (appendix A)")
    p.add_argument("--max-new-tokens", type=int, default=96, help="tokens per rollout at most (short: CPU)")
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--backend", default="transformers", help="rollout backend (ct2: the fast int8 CPU engine)")
    p.add_argument("--no-run", action="store_true", help="only summarise the files already written")
    args = p.parse_args()
    out, methods = Path(args.out), [m.strip() for m in args.methods.split(",")]
    out.mkdir(parents=True, exist_ok=True)
    if not args.no_run:
        cfg = RolloutLabelConfig(k=args.rollouts, max_new_tokens=args.max_new_tokens,
                                 batch_size=args.batch_size, backend=args.backend)
        for m, secs in run(args.pools, out, methods, cfg).items():
            print(f"{m}: {secs:.1f} s wall")
    summary(out, methods, [pool.problem.id for pool in read_pools(args.pools)])


if __name__ == "__main__":
    main()
