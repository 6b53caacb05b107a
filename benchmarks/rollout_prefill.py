"""The prefill of a rollout batch: every prompt padded and run whole with logits at every position (how rollouts
prefilled before) against the start all prompts share run once with logits at one position only
(`prmkit.generate.backends.hf.shared_prefill`, what rollouts and sampling do now).

Workload: the distinct step prefixes of bench problems (the constructed traces of `bench_problems(8, seed=7,
levels=(1, 2, 3, 4))`), rendered as the rollout labelers render them (few-shot prompt, question, steps), in batches
of `--per-batch` prompts as Math-Shepherd sends them (batch_size 64 // K = 4 -> 16). Per model: tokens run through
the model and seconds of both prefills over the same batches, and their ratios (one run, same process).

    python benchmarks/rollout_prefill.py --threads 2 [--models smollm2-135m gemma3-270m] [--per-batch 16]
"""

from __future__ import annotations

import argparse
import time

import torch

from prmkit.data.bench import bench_problems, constructed_pools
from prmkit.generate.backends import BackendOptions, make_backend
from prmkit.generate.backends.hf import shared_prefill
from prmkit.generate.prompts import build_prompt
from prmkit.generate.rollout import partial_answer


def prompts_of(backend, per_batch: int) -> list[list[str]]:
    problems = bench_problems(8, 7, (1, 2, 3, 4), "small")
    pools, _ = constructed_pools(problems, ("arithmetic", "operation", "operand", "corrected"), 7)
    texts: list[str] = []
    for pool in pools:
        seen: set[tuple[str, ...]] = set()
        for trace in pool.traces:
            for n in range(1, len(trace.steps)):
                if (key := tuple(trace.steps[:n])) not in seen:
                    seen.add(key)
                    texts.append(partial_answer(backend.render(build_prompt(pool.problem)), key))
    return [texts[i : i + per_batch] for i in range(0, len(texts), per_batch)]


def full_prefill(model, tokenizer, batch: list[str], name: str) -> int:
    """Every prompt left-padded and run whole, logits at every position (the previous rollout prefill)."""
    from transformers import DynamicCache

    enc = tokenizer(batch, return_tensors="pt", padding=True)
    ids, mask = enc["input_ids"], enc["attention_mask"]
    positions = (mask.cumsum(-1) - 1).clamp(min=0)[:, :-1]
    with torch.inference_mode():
        model(input_ids=ids[:, :-1], attention_mask=mask[:, :-1], position_ids=positions, use_cache=True,
              **{name: DynamicCache(config=model.config)})
    return int(mask[:, :-1].sum())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", nargs="+", default=["smollm2-135m"])
    ap.add_argument("--per-batch", type=int, default=16)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    print("| model | batches | prompts | full: tokens | full: s | shared: tokens | shared: s | tokens ratio | "
          "time ratio |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name in args.models:
        backend = make_backend("transformers", name, BackendOptions(batch_size=64))
        model, tok, cache = backend.model, backend.tokenizer, backend._cache
        batches = prompts_of(backend, args.per_batch)
        full_prefill(model, tok, batches[0][:2], cache)  # warm-up
        start = time.perf_counter()
        full = sum(full_prefill(model, tok, b, cache) for b in batches)
        t_full = time.perf_counter() - start
        start = time.perf_counter()
        shared = sum(shared_prefill(model, tok(b)["input_ids"], tok.pad_token_id, cache)[3] for b in batches)
        t_shared = time.perf_counter() - start
        print(f"| {name} | {len(batches)} | {sum(map(len, batches))} | {full:,} | {t_full:.1f} | {shared:,} | "
              f"{t_shared:.1f} | {full / shared:.2f}x | {t_full / t_shared:.2f}x |")


if __name__ == "__main__":
    main()
