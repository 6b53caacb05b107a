"""`prmkit payoff run`: one labeler's row (its labels of the bench's training traces -> a reward model -> scores of
the policy's samples of fresh problems); `prmkit payoff table`: every row against majority voting, with its cost.

    prmkit payoff run --bench runs/bench_train --labeler mcnig --fresh runs/fresh/pools.jsonl --output runs/payoff/mcnig
    prmkit payoff score --scorer rule: --fresh runs/fresh/pools.jsonl --output runs/payoff/rule
    prmkit payoff table runs/payoff/outcome runs/payoff/mcnig runs/payoff/truth --output runs/payoff/table
    prmkit payoff table benchmarks/data/scale/rows/*.jsonl.gz --fresh benchmarks/data/scale/fresh_pools.jsonl.gz

A re-run of `run` into the same directory resumes (`prmkit.experiments.payoff`).
"""

from __future__ import annotations

import argparse

from prmkit.cli.common import add_config_arguments, config_from_args

COMMANDS = ("run", "score", "table")  # light to import: `prmkit --help` lists them (prmkit.evaluate loads torch)


def add_arguments(p: argparse.ArgumentParser) -> None:
    from prmkit.experiments.payoff import PayoffConfig
    from prmkit.experiments.payoff_score import PayoffScoreConfig

    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    row = sub.add_parser("run", help="one labeler's row: train its reward model, score the fresh samples",
                         description="one labeler's labels of the bench's training traces -> a reward model "
                                     "(the shared recipe) -> scores of the policy's samples of fresh problems")
    add_config_arguments(row, PayoffConfig)
    scored = sub.add_parser("score", help="an untrained scorer's row (the exact checker, the rule verifier)",
                            description="score the fresh samples with a scorer that needs no training (truth:PROBLEMS, "
                                        "rule:) and write its row as `payoff run` does")
    add_config_arguments(scored, PayoffScoreConfig)
    table = sub.add_parser("table", help="every row against majority voting, with its label and training cost",
                           description="best-of-K and weighted voting of each row minus majority voting (paired "
                                       "by problem, bootstrap interval), beside each row's cost")
    from prmkit.models.aggregate import AGGREGATIONS

    table.add_argument("rows", nargs="+", metavar="ROW", help="`prmkit payoff run` output directories or kept rows "
                                                              "(NAME.jsonl.gz, with --fresh); ROW@AGGREGATION "
                                                              "re-aggregates a row's step scores "
                                                              f"({' | '.join(AGGREGATIONS)})")
    table.add_argument("--fresh", default=None, help="the fresh pools the rows scored (gzipped or not): kept rows "
                                                     "take their answers and verdicts from it")
    table.add_argument("--output", default=None, help="directory for table.json, table.md, payoff.png")
    table.add_argument("--ks", default="", help="K values, e.g. 1,2,4,8 (default: powers of 2 up to the largest pool)")
    table.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples of the intervals")
    table.add_argument("--seed", type=int, default=0, help="seed of the K-subsets and the bootstrap")
    table.add_argument("--against", default=None, metavar="NAME",
                       help="a row's name: every other row's weighted voting and best-of-K minus that row's, paired "
                            "by problem (95%% intervals)")
    table.add_argument("--summary", default=None, help="JSON file: a row per (row, K >= 2) with best-of-K and weighted "
                                                        "voting minus majority voting [point, lo, hi], within-problem "
                                                        "AUC, label tokens, training seconds")


def run(args: argparse.Namespace) -> None:
    from prmkit.evaluate.run import ks_list
    from prmkit.experiments.payoff import PayoffConfig, run_payoff
    from prmkit.experiments.payoff_report import format_payoff, payoff_table

    if args.command == "table":
        print(format_payoff(payoff_table(args.rows, args.output, ks_list(args.ks), args.bootstrap, args.seed,
                                         args.summary, args.against, args.fresh)))
        return
    if args.command == "score":
        from prmkit.experiments.payoff_score import PayoffScoreConfig, score_payoff

        cfg = config_from_args(PayoffScoreConfig, args)
        row = score_payoff(cfg)
        print(f"{row['name']}: {row['score']['written']} fresh traces scored by {cfg.scorer} -> {cfg.output}")
        return
    cfg = config_from_args(PayoffConfig, args)
    row = run_payoff(cfg, log=lambda m: print(m, flush=True))
    print(f"{row['labeler']}: {row['kind']} trained on {row['train']['examples']} examples in "
          f"{row['train']['train_seconds']:.0f} s; {row['score']['written']} fresh traces scored -> {cfg.output}")
