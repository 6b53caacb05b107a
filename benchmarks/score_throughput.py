"""PRM scoring tokens/s against a raw forward pass of the same model on the same batches.

Scoring = `score_pools` end to end (tokenisation, traces batched by length across problems by
`RewardModel.score_many`, decoder body, the class rows of the head at the delimiters, aggregation).
Two raw forwards on exactly the batches scoring used: `raw` = `model(input_ids, attention_mask)` with the
full-vocabulary logits (what a plain forward costs), and `raw-body` = the same with `logits_to_keep=1`
(the decoder body alone: the harder baseline, since scoring reads only a few head rows).
All count real (non-padding) tokens; they are run alternately, twice.

    python benchmarks/score_throughput.py --model smollm2-135m --problems 24
    python benchmarks/score_throughput.py --model runs/rm_orm      # a trained checkpoint
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import torch

from prmkit.data.formats import read_pools
from prmkit.evaluate.score import score_pools
from prmkit.models.reward import RewardModel, RewardModelConfig, length_batches

DATA = Path(__file__).resolve().parents[2] / "shared/data/gsm8k/candidates_dev.jsonl"


def raw_forward(prm: RewardModel, pools: list, max_tokens: int, **kwargs) -> tuple[int, float]:
    items = [(p.problem.question, t.steps) for p in pools for t in p.traces]
    encoded = [prm.encode(q, s) for q, s in items]  # the batches `score_many` makes: by length, across problems
    tokens, seconds = 0, 0.0
    for batch in length_batches([len(ids) for ids, _ in encoded], max_tokens, prm.max_batch):
        inputs = prm.collate([encoded[i] for i in batch])
        start = time.perf_counter()
        with torch.inference_mode():
            prm.model(input_ids=inputs["input_ids"], attention_mask=inputs["attention_mask"], **kwargs)
        seconds += time.perf_counter() - start
        tokens += int(inputs["attention_mask"].sum())
    return tokens, seconds


def scoring(prm: RewardModel, pools: list, max_tokens: int) -> tuple[int, float]:
    start, before = time.perf_counter(), prm.scored_tokens
    prm.max_tokens = max_tokens
    for _ in score_pools(prm, pools):
        pass
    return prm.scored_tokens - before, time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="smollm2-135m", help="base model name/dir or a prmkit checkpoint")
    ap.add_argument("--input", default=str(DATA), help="pool file (default: GSM8K candidates_dev)")
    ap.add_argument("--problems", type=int, default=24, help="first N problems (4 traces each)")
    ap.add_argument("--max-tokens", type=int, default=4096, help="padded tokens per batch")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    if (Path(args.model) / "prmkit_reward.json").is_file():
        prm = RewardModel.from_pretrained(args.model)
    else:
        prm = RewardModel.from_base(args.model, RewardModelConfig())
    prm.model.eval()
    pools = list(read_pools(args.input))[: args.problems]
    scoring(prm, pools[:2], args.max_tokens)  # warm-up (and the tokenisation cache, as in real use)
    raw_forward(prm, pools[:2], args.max_tokens)
    runs = {"raw": raw_forward, "raw-body": lambda *a: raw_forward(*a, logits_to_keep=1), "score": scoring}
    totals = {name: [0, 0.0] for name in runs}
    for _ in range(2):
        for name, fn in runs.items():
            t, s = fn(prm, pools, args.max_tokens)
            totals[name][0] += t
            totals[name][1] += s
    tps = {name: tokens / seconds for name, (tokens, seconds) in totals.items()}
    print(f"model {args.model}: {len(pools)} problems, {totals['score'][0] // 2} tokens per pass, "
          f"{torch.get_num_threads()} threads")
    print(f"raw forward (full-vocabulary logits)  {tps['raw']:8.1f} tokens/s")
    print(f"raw forward (decoder body only)       {tps['raw-body']:8.1f} tokens/s")
    print(f"PRM scoring                           {tps['score']:8.1f} tokens/s")
    print(f"ratio scoring / raw forward           {tps['score'] / tps['raw']:8.2f}x  (target >= 0.8)")
    print(f"ratio scoring / raw body only         {tps['score'] / tps['raw-body']:8.2f}x")


if __name__ == "__main__":
    main()
