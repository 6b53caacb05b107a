"""Where a GPU decode step's time goes: kernel launches, transformers generate with a dynamic and a static
(compiled, CUDA-graph) cache, and prmkit's decode (`generate_rendered`) on flat and peaked logits.

    PYTHONPATH=src python3 benchmarks/gpu_decode.py                 # one GPU, ~4 minutes
    DEV=cpu NEW=3 ROWS=16 PYTHONPATH=src python3 benchmarks/gpu_decode.py --prmkit-only   # a smoke run on a CPU

The model is benchmarks/gpu_check.py's (SmolLM2-135M's shape, random weights, bf16). Random weights give flat
logits (the top token's probability ~2e-5), for which a 0.95 nucleus holds most of the vocabulary and sampling
sorts it all; scaling the final norm by 12 gives logits as peaked as a trained model's (mean top probability
0.3-0.5), the case a real rollout meets. Every rate is the second of two identical calls (the first compiles,
allocates and lets the clocks rise). Environment: DEV (cuda), NEW (new tokens, 128), ROWS (128,1024).
"""

import functools
import os
import random
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(__file__))
from gpu_check import WORDS, make_model, make_tokenizer, sync, timed

DEV = os.environ.get("DEV", "cuda")
NEW = int(os.environ.get("NEW", "128"))
ROWS = tuple(int(r) for r in os.environ.get("ROWS", "128,1024").split(","))


def launches() -> None:
    x = torch.ones(16, device=DEV)
    print(f"launch: {timed(lambda: [x.add_(1) for _ in range(2000)]) / 2000 * 1e6:.1f} us a small kernel (eager)")
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(2000):
            x.add_(1)
    print(f"launch in a CUDA graph: {timed(graph.replay) / 2000 * 1e6:.2f} us a kernel", flush=True)


def transformers_generate(model) -> None:
    for rows in ROWS:
        ids = torch.randint(3, 40000, (rows, 64), generator=torch.Generator().manual_seed(1)).to(DEV)
        for impl in ("dynamic", "static"):
            extra = {} if impl == "dynamic" else {"cache_implementation": "static"}
            run = functools.partial(_generate, model, ids, extra)
            start = time.perf_counter()
            run()
            sync()
            first = time.perf_counter() - start
            seconds = timed(run)
            print(f"generate bf16 {rows} rows {impl}: first call {first:.1f} s, then {rows * NEW / seconds:.0f} "
                  f"tok/s ({seconds / NEW * 1e3:.1f} ms a step)", flush=True)


def _generate(model, ids, extra: dict):
    with torch.inference_mode():
        return model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), do_sample=True, top_p=0.95,
                              top_k=0, max_new_tokens=NEW, min_new_tokens=NEW, pad_token_id=2, **extra)


def _decode_into(done: list, backend, prompts: list[str], cfg, seeds: list[int]) -> None:
    done.append(backend.generate_rendered(prompts, cfg, seeds))


def prmkit_decode(model, tok) -> None:
    from prmkit.generate.backends import BackendOptions, SamplingConfig
    from prmkit.generate.backends.hf import TransformersBackend
    from prmkit.generate.backends.row_sampling import sample_rows, seed_keys, step_keys

    rng = random.Random(0)
    for sharp in (1.0, 12.0):
        with torch.no_grad():
            model.model.norm.weight.mul_(sharp)
        for rows in ROWS:
            prompts = [" ".join(rng.choice(WORDS) for _ in range(60)) for _ in range(rows // 8)]
            backend = TransformersBackend((model, tok), BackendOptions(batch_size=rows))
            cfg, seeds = SamplingConfig(n=8, max_new_tokens=NEW, seed=0), list(range(len(prompts)))
            done: list = []  # each call's completions: the timed one's tokens are counted, not decoded again
            seconds = timed(functools.partial(_decode_into, done, backend, prompts, cfg, seeds))
            tokens = sum(c.tokens for cs in done[-1] for c in cs)
            with torch.inference_mode():
                ids = tok(prompts[:1], return_tensors="pt")["input_ids"].to(DEV).repeat(rows, 1)
                logits = model(input_ids=ids, logits_to_keep=1).logits[:, -1]
            top = logits.float().softmax(-1).max(-1).values.mean().item()
            keys = step_keys(seed_keys(list(range(rows)), DEV), 0)
            sampling = timed(functools.partial(sample_rows, logits, 0.7, 0.95, keys), 20)
            print(f"logits x{sharp:g}, {rows} rows bf16: prmkit decode {tokens / seconds:.0f} tok/s "
                  f"({seconds / NEW * 1e3:.1f} ms a step); sample_rows {sampling * 1e3:.2f} ms a step; mean top "
                  f"probability {top:.3f}", flush=True)


if __name__ == "__main__":
    model = make_model(DEV).to(torch.bfloat16)
    if "--prmkit-only" not in sys.argv:
        launches()
        transformers_generate(model)
    prmkit_decode(model, make_tokenizer())
