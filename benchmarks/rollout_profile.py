"""Where the time of a rollout goes, per engine: model load, prefill, decoding steps, batch size, prefix sharing.

The same workload as `rollout_throughput.py` (GSM8K prefixes of 60 tokens in the chat template, K continuations),
but every phase timed on its own, with the length forced (`min_length` = `max_length`) so that every row decodes the
same number of steps whatever it samples:

- ctranslate2 int8: `Generator` load; prefill only (1 new token) of all P*K rows; P*K rows x T tokens in one batch,
  in batches of K, in one batch of P prompts x K hypotheses (`num_hypotheses`: one prefill per prefix, the ct2
  backend's default), and with the prefix shared (`static_prompt`, one call of K per prefix); greedy vs full top-p.
- transformers fp32: prefill only; P*K rows x T tokens in batches of K (the rollout baseline).

Per phase: seconds, and decoding ms per step = (full - prefill) / T. Ratios inside one run only.

    python benchmarks/rollout_profile.py --threads 2 [--prefixes 8] [--k 16] [--max-new-tokens 128]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import torch
from rollout_throughput import gsm8k_prefixes

from prmkit.generate.backends.ct2 import convert_to_ct2
from prmkit.models.loading import load_model


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def ct2_phases(path: str, tokens: list[list[str]], k: int, steps: int, threads: int) -> dict[str, float]:
    import ctranslate2

    out: dict[str, float] = {}
    holder: dict[str, object] = {}
    out["load Generator"] = timed(lambda: holder.setdefault("g", ctranslate2.Generator(
        path, device="cpu", compute_type="int8", intra_threads=threads, inter_threads=1)))
    gen = holder["g"]
    rows = [t for t in tokens for _ in range(k)]
    sample = dict(sampling_topk=0, sampling_topp=0.95, sampling_temperature=1.0, include_prompt_in_result=False)

    def run(batch, n_steps, **extra):
        return lambda: gen.generate_batch(batch, max_length=n_steps, min_length=n_steps, **{**sample, **extra})

    out["prefill only, one batch"] = timed(run(rows, 1, max_batch_size=len(rows)))
    out["full, one batch of P*K"] = timed(run(rows, steps, max_batch_size=len(rows)))
    out["full, batches of K"] = timed(run(rows, steps, max_batch_size=k))
    out["full, one batch, greedy"] = timed(lambda: gen.generate_batch(
        rows, max_length=steps, min_length=steps, max_batch_size=len(rows), include_prompt_in_result=False))
    out["prefill only, one batch, K hypotheses per prefix"] = timed(run(tokens, 1, num_hypotheses=k))
    out["full, one batch, K hypotheses per prefix"] = timed(run(tokens, steps, num_hypotheses=k))
    out["prefill only, shared prefix (K rows per call)"] = sum(timed(lambda t=t: gen.generate_batch(
        [t[-1:]] * k, static_prompt=t[:-1], cache_static_prompt=False, max_length=1, min_length=1, **sample))
        for t in tokens)
    out["full, shared prefix (K rows per call)"] = sum(timed(lambda t=t: gen.generate_batch(
        [t[-1:]] * k, static_prompt=t[:-1], cache_static_prompt=False, max_length=steps, min_length=steps, **sample))
        for t in tokens)
    return out


def hf_phases(model, ids: list[list[int]], k: int, steps: int) -> dict[str, float]:
    out = {"prefill only, batches of K": 0.0, "full, batches of K": 0.0}
    with torch.inference_mode():
        for row in ids:
            x = torch.tensor([row] * k)  # (K, T0): one prefix, K copies (no padding)
            out["prefill only, batches of K"] += timed(lambda x=x: model(input_ids=x))
            out["full, batches of K"] += timed(lambda x=x: model.generate(
                input_ids=x, attention_mask=torch.ones_like(x), do_sample=True, top_p=0.95, top_k=0,
                max_new_tokens=steps, min_new_tokens=steps, pad_token_id=0))
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default="smollm2-135m")
    p.add_argument("--data", default="../shared/data/gsm8k/train.jsonl")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--prefixes", type=int, default=8)
    p.add_argument("--prefix-tokens", type=int, default=60)
    p.add_argument("--k", type=int, default=16)
    p.add_argument("--max-new-tokens", type=int, default=128)
    p.add_argument("--skip-transformers", action="store_true")
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    model, tokenizer = load_model(args.model)
    prompts = gsm8k_prefixes(Path(args.data), tokenizer, args.prefixes, args.prefix_tokens)
    ids = [tokenizer(t).input_ids for t in prompts]
    tokens = [tokenizer.convert_ids_to_tokens(x) for x in ids]
    steps, rows = args.max_new_tokens, args.prefixes * args.k
    print(f"{args.prefixes} prefixes ({sum(map(len, ids)) / len(ids):.0f} prompt tokens each) x K={args.k} x "
          f"{steps} forced new tokens, threads {args.threads}")
    report = {f"ct2 int8: {n}": v for n, v in
              ct2_phases(str(convert_to_ct2(args.model, "int8")), tokens, args.k, steps, args.threads).items()}
    if not args.skip_transformers:
        report |= {f"transformers fp32: {n}": v for n, v in hf_phases(model, ids, args.k, steps).items()}
    print(f"{'phase':<62} {'seconds':>8} {'gen tok/s':>10}")
    for name, secs in report.items():
        rate = rows * steps / secs if "full" in name else float("nan")
        print(f"{name:<62} {secs:8.2f} {rate:10.1f}")
    for engine, prefill, full in (("ct2 int8", "prefill only, one batch", "full, one batch of P*K"),
                                  ("ct2 int8", "prefill only, one batch, K hypotheses per prefix",
                                   "full, one batch, K hypotheses per prefix"),
                                  ("ct2 int8", "prefill only, shared prefix (K rows per call)",
                                   "full, shared prefix (K rows per call)"),
                                  ("transformers fp32", "prefill only, batches of K", "full, batches of K")):
        a, b = report.get(f"{engine}: {prefill}"), report.get(f"{engine}: {full}")
        if a is not None and b is not None:
            print(f"{engine} ({full}): prefill {a / b:.0%} of the run; decoding "
                  f"{1000 * (b - a) / steps:.1f} ms per step for {rows} rows")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
