"""Tokens/s of batched vs. one-at-a-time sampling with the transformers backend (one run, prints the ratio).

Same prompts (few-shot math prompts of the demo set), same K and max_new_tokens; only the batch size differs.

    python benchmarks/generate_throughput.py [--model smollm2-135m] [--k 8] [--batch-size 16] [--max-new-tokens 64]
"""

from __future__ import annotations

import argparse
import time

from prmkit.data.demo_problems import demo_problems
from prmkit.generate import BackendOptions, SamplingConfig, build_prompt, make_backend


def tokens_per_second(model: str, prompts: list[str], cfg: SamplingConfig, batch_size: int) -> float:
    backend = make_backend("transformers", model, BackendOptions(batch_size=batch_size))
    start = time.perf_counter()
    out = backend.generate(prompts, cfg)
    return sum(c.tokens for cs in out for c in cs) / (time.perf_counter() - start)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default="smollm2-135m")
    p.add_argument("--problems", type=int, default=2)
    p.add_argument("--k", type=int, default=8)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--max-new-tokens", type=int, default=64)
    args = p.parse_args()
    prompts = [build_prompt(q) for q in demo_problems(args.problems)]
    cfg = SamplingConfig(n=args.k, max_new_tokens=args.max_new_tokens, seed=0)
    make_backend("transformers", args.model)  # load (and convert, first time) outside the timing
    batched = tokens_per_second(args.model, prompts, cfg, args.batch_size)
    single = tokens_per_second(args.model, prompts, cfg, 1)
    print(
        f"batched (batch {args.batch_size}): {batched:.1f} tok/s; one at a time: {single:.1f} tok/s; "
        f"ratio {batched / single:.2f}x ({args.problems} prompts x K={args.k}, {args.max_new_tokens} new tokens)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
