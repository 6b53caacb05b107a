"""MCNIG labeling speed against a plain forward pass and against naive re-encoding, in one run.

    python benchmarks/label_throughput.py --pools 50 --naive-pools 10

For each GSM8K candidate pool, in turn (so that load on the machine hits all three alike):
  raw    - one plain causal forward of the same model over the pool's CoTs (prompt + steps), batched per pool;
  mcnig  - prmkit's one-pass block-mask scorer over all (step, answer) pairs of the pool (I_0 once);
  naive  - (first --naive-pools pools) re-encode prompt + r_1..r_i + cue + y for every (i, y), batched.
Prints raw tokens/s, MCNIG tokens/s counted by the paper's formula |q| + sum|r_i| + (N+1)*S*T (appendix A),
the wall times, the ratios, and the largest |one-pass - naive| difference in nats. The model runs where
`PRMKIT_DEVICE` says (`prmkit.models.device`: the GPU when there is one).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import torch

from prmkit.data.answers import answer_sets
from prmkit.data.gsm8k import read_gsm8k_candidates
from prmkit.label import InformationConfig, make_scorer, paper_tokens
from prmkit.label.information_scorer import InformationScorer
from prmkit.models.loading import load_model
from prmkit.models.stepwise import encode_steps

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared/data/gsm8k/candidates_dev.jsonl"


def raw_forward(scorer: InformationScorer, question: str, traces: list[list[str]]) -> int:
    seqs = [encode_steps(scorer.tokenizer, scorer.prompt(question), steps, scorer.sep)[0] for steps in traces]
    length = max(map(len, seqs))
    ids = torch.zeros((len(seqs), length), dtype=torch.long)
    mask = torch.zeros((len(seqs), length), dtype=torch.long)
    for b, s in enumerate(seqs):
        ids[b, : len(s)], mask[b, : len(s)] = torch.tensor(s), 1
    with torch.inference_mode():
        device = scorer.model.device
        scorer.model(input_ids=ids.to(device), attention_mask=mask.to(device), logits_to_keep=1)
    if device.type == "cuda":
        torch.cuda.synchronize()
    return sum(map(len, seqs))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--model", default="smollm2-135m")
    ap.add_argument("--pools", type=int, default=50)
    ap.add_argument("--naive-pools", type=int, default=10, help="pools also scored naively (O(N^2) tokens)")
    ap.add_argument("--naive-batch", type=int, default=8)
    ap.add_argument("--dtype", default="float32", help="model dtype; float64 isolates the algorithm from rounding")
    args = ap.parse_args()

    model, tok = load_model(args.model, args.dtype)
    scorer = make_scorer(model, tok, InformationConfig())
    pools = [p for p in read_gsm8k_candidates(args.data) if answer_sets(p)[2]][: args.pools]
    t = {"raw": 0.0, "mcnig": 0.0, "naive": 0.0, "mcnig_on_naive_pools": 0.0}
    raw_tokens = formula_tokens = processed = naive_tokens = 0
    max_diff = 0.0
    raw_forward(scorer, pools[0].problem.question, [pools[0].traces[0].steps])  # warm-up
    for k, pool in enumerate(pools):
        q, traces = pool.problem.question, [tr.steps for tr in pool.traces]
        answers = answer_sets(pool)[0]
        t0 = time.perf_counter()
        raw_tokens += raw_forward(scorer, q, traces)
        t1 = time.perf_counter()
        before = scorer.tokens_read
        fast = scorer.information(q, traces, answers)
        t2 = time.perf_counter()
        processed += scorer.tokens_read - before
        formula_tokens += sum(paper_tokens(scorer, q, steps, answers) for steps in traces)
        t["raw"] += t1 - t0
        t["mcnig"] += t2 - t1
        if k < args.naive_pools:
            before = scorer.tokens_read
            for steps, table in zip(traces, fast, strict=True):
                naive = scorer.naive_information(q, steps, answers, batch_size=args.naive_batch)
                diffs = [abs(a - b) for ra, rb in zip(table, naive, strict=True) for a, b in zip(ra, rb, strict=True)]
                max_diff = max(max_diff, *diffs)
            t["naive"] += time.perf_counter() - t2
            t["mcnig_on_naive_pools"] += t2 - t1
            naive_tokens += scorer.tokens_read - before
    raw_tps, mc_tps = raw_tokens / t["raw"], formula_tokens / t["mcnig"]
    print(f"model {args.model}, {len(pools)} pools ({sum(len(p.traces) for p in pools)} CoTs), "
          f"torch threads {torch.get_num_threads()}, {args.dtype}")
    print(f"raw forward        : {raw_tokens} tokens in {t['raw']:.1f} s = {raw_tps:.1f} tok/s")
    print(f"MCNIG labeling     : {formula_tokens} paper-formula tokens ({processed} fed) in {t['mcnig']:.1f} s "
          f"= {mc_tps:.1f} tok/s ({processed / t['mcnig']:.1f} fed tok/s)")
    print(f"naive re-encoding  : {naive_tokens} tokens in {t['naive']:.1f} s on the first {args.naive_pools} pools "
          f"(one-pass took {t['mcnig_on_naive_pools']:.1f} s on them)")
    print(f"ratio MCNIG / raw forward tok/s       : {mc_tps / raw_tps:.2f}  (target >= 0.8)")
    print(f"speed-up over naive (same pools, wall): {t['naive'] / t['mcnig_on_naive_pools']:.2f}x  (target >= 5)")
    print(f"max |one-pass - naive| information    : {max_diff:.2e} nats  (target <= 1e-4)")


if __name__ == "__main__":
    main()
