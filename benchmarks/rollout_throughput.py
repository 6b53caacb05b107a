"""Rollout throughput: GSM8K prefixes x K continuations on every installed backend (one run, prints ratios).

Workload: the first `--prefixes` GSM8K train questions whose reference solution has >= 70 tokens, with its first
`--prefix-tokens` tokens as the partial answer, rendered in the chat template (assistant turn left open);
K continuations of `--max-new-tokens` each. Backends run interleaved over `--repeats` (machine load hits all alike).
Also printed: the raw batched forward throughput of the fp32 model, and a quality check: mean per-token log-prob of
each backend's samples scored under the fp32 reference model. ct2 runs three ways: shared prefix (the backend's
default: all prompts in one batch, K hypotheses from one prefill each), no sharing in K-row batches, and no sharing
with all P*K rows in one batch (the same batch as shared: the sharing ratio without a batching difference).

    python benchmarks/rollout_throughput.py --threads 2 [--repeats 1] [--prefixes 8] [--k 16] [--max-new-tokens 128]
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path

import torch

from prmkit.generate import BackendOptions, SamplingConfig, make_backend
from prmkit.generate.backends.ct2 import CT2Backend
from prmkit.models.loading import load_model


def gsm8k_prefixes(path: Path, tokenizer, count: int, prefix_tokens: int) -> list[str]:
    prompts = []
    for line in path.open(encoding="utf-8"):
        row = json.loads(line)
        ids = tokenizer(row["answer"]).input_ids
        if len(ids) < prefix_tokens + 10:
            continue
        turns = [{"role": "user", "content": row["question"]},
                 {"role": "assistant", "content": tokenizer.decode(ids[:prefix_tokens])}]
        prompts.append(tokenizer.apply_chat_template(turns, tokenize=False, continue_final_message=True))
        if len(prompts) == count:
            break
    return prompts


def forward_tokens_per_second(model, tokenizer, prompts: list[str], length: int) -> float:
    ids = torch.cat([tokenizer(p, return_tensors="pt").input_ids[:, :64] for p in prompts])[:, :64]  # (B, 64)
    ids = ids.repeat(1, max(1, length // 64))  # (B, T)
    with torch.inference_mode():
        start = time.perf_counter()
        model(input_ids=ids)
        return ids.numel() / (time.perf_counter() - start)


def mean_logprob(model, tokenizer, prompts: list[str], samples: list[list[str]]) -> float:
    """Mean log-prob per generated token under `model` (the fp32 reference)."""
    total, count = 0.0, 0
    with torch.inference_mode():
        for prompt, texts in zip(prompts, samples, strict=True):
            head = tokenizer(prompt).input_ids
            for text in texts:
                tail = tokenizer(text, add_special_tokens=False).input_ids
                if not tail:
                    continue
                ids = torch.tensor([head + tail])  # (1, T)
                logp = model(input_ids=ids).logits[0, len(head) - 1 : -1].log_softmax(-1)  # (T_new, V)
                total += logp.gather(1, torch.tensor(tail)[:, None]).sum().item()
                count += len(tail)
    return total / max(count, 1)


def report(args, model, tokenizer, prompts: list[str], rates: dict[str, list[float]],
           texts: dict[str, list[list[str]]], repeats: int) -> None:
    """Print the table over the repeats done so far (mean tok/s of each backend)."""
    forward = forward_tokens_per_second(model, tokenizer, prompts, 128)
    base = sum(rates["transformers batched"]) / repeats
    print(f"{args.prefixes} prefixes x K={args.k} x {args.max_new_tokens} new tokens, threads {args.threads}, "
          f"repeats {repeats}; raw fp32 forward: {forward:.0f} tok/s")
    print(f"{'backend':<30} {'tok/s':>8} {'vs transformers':>16} {'vs forward':>11} {'ref logp/token':>15}")
    for name, values in rates.items():
        rate = sum(values) / len(values)
        quality = mean_logprob(model, tokenizer, prompts, texts[name])
        print(f"{name:<30} {rate:8.1f} {rate / base:15.2f}x {rate / forward:10.3f}x {quality:15.3f}")
    shared, plain, one = (sum(rates[n]) / repeats for n in ("ct2 int8 shared prefix", "ct2 int8 no sharing",
                                                              "ct2 int8 no sharing, one batch"))
    print(f"prefix sharing vs none (ct2): {shared / plain:.2f}x vs {args.k}-row batches, {shared / one:.2f}x vs the "
          f"same {args.prefixes * args.k} rows in one batch", flush=True)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default="smollm2-135m")
    p.add_argument("--data", default="../shared/data/gsm8k/train.jsonl", help="GSM8K train.jsonl")
    p.add_argument("--threads", type=int, default=2, help="CPU threads for every backend")
    p.add_argument("--repeats", type=int, default=1)
    p.add_argument("--prefixes", type=int, default=8)
    p.add_argument("--prefix-tokens", type=int, default=60)
    p.add_argument("--k", type=int, default=16)
    p.add_argument("--max-new-tokens", type=int, default=128)
    p.add_argument("--quality-samples", type=int, default=4, help="samples per prefix scored for the quality check")
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    model, tokenizer = load_model(args.model)
    prompts = gsm8k_prefixes(Path(args.data), tokenizer, args.prefixes, args.prefix_tokens)
    cfg = SamplingConfig(n=args.k, max_new_tokens=args.max_new_tokens, seed=0)
    backends: dict[str, Callable[[], object]] = {
        "transformers batched": lambda: make_backend("transformers", args.model, BackendOptions(batch_size=args.k)),
        "ct2 int8 shared prefix": lambda: CT2Backend(args.model, threads=args.threads, share_prefix=True),
        "ct2 int8 no sharing": lambda: CT2Backend(args.model, threads=args.threads, share_prefix=False),
        "ct2 int8 no sharing, one batch": lambda: CT2Backend(
            args.model, BackendOptions(batch_size=args.prefixes * args.k), threads=args.threads, share_prefix=False),
    }
    made = {name: make() for name, make in backends.items()}  # load/convert outside the timing
    rates: dict[str, list[float]] = {name: [] for name in made}
    texts: dict[str, list[list[str]]] = {}
    for repeat in range(args.repeats):
        for name, backend in made.items():
            start = time.perf_counter()
            out = backend.generate(prompts, SamplingConfig(**{**cfg.__dict__, "seed": repeat}))
            rates[name].append(sum(c.tokens for cs in out for c in cs) / (time.perf_counter() - start))
            texts[name] = [[c.text for c in cs[: args.quality_samples]] for cs in out]
        report(args, model, tokenizer, prompts, rates, texts, repeat + 1)  # the table so far, after each repeat
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
