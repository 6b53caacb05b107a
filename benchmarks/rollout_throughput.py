"""Rollout throughput: GSM8K step prefixes x K continuations on every installed engine, in one run (prints ratios).

Workload: the first `--prefixes` GSM8K train questions whose reference solution has enough tokens, with its first
`--prefix-tokens` tokens as the partial answer, rendered in the chat template (assistant turn left open);
K continuations of `--max-new-tokens` each, top-p 0.95, T = 1. The engines run interleaved over `--repeats` (machine
load hits all alike):

- `transformers generate (baseline)`: `model.generate(do_sample=True)` on K copies of each prefix, K rows a batch,
  the prefix prefilled once and its cache copied K times: the transformers backend before rows could leave the
  batch (finished rows decode padding until the batch ends);
- `prmkit decode fp32` / `prmkit decode bf16`: the transformers backend's rollout path (`generate_rendered`): each
  distinct prefix prefilled once, all P x K rows in one batch, every row with its own seeded generator, a row
  leaving the batch when done (`prmkit.generate.backends.decode`); bf16 weights use the CPU's bf16 matrix units
  (AMX / AVX512-BF16) through oneDNN where it has them;
- `ct2 int8 shared prefix`: the ctranslate2 backend (`num_hypotheses` = K, one prefill per prefix).

Printed per engine: generated tok/s (mean over repeats), the ratio to the baseline and to the raw fp32 forward of
the same model (a batched forward pass over `--prefixes` x 128 tokens, measured in the same run; the bf16 forward is
printed too), the first-token latency (the same call with one new token), the process's peak resident memory during
the call (all engines' weights are loaded: the differences are the engines' working memory), and the quality check:
the mean log-prob per generated token of the engine's samples under the fp32 reference model (the baseline's own
samples give the reference level).

    python benchmarks/rollout_throughput.py --threads 2 [--repeats 1] [--prefixes 8] [--k 16] [--max-new-tokens 128]
    python benchmarks/rollout_throughput.py --profile "prmkit decode bf16"   # where that engine's time goes
    PRMKIT_DEVICE=cuda python benchmarks/rollout_throughput.py               # on the GPU (ct2 stays on the CPU)
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from collections.abc import Callable
from pathlib import Path

import torch

from prmkit.generate import BackendOptions, SamplingConfig
from prmkit.generate.backends import make_backend
from prmkit.generate.backends.base import Completion
from prmkit.models.loading import load_model

ENGINES = ("transformers generate (baseline)", "prmkit decode fp32", "prmkit decode bf16", "ct2 int8 shared prefix")


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
    ids = ids.repeat(1, max(1, length // 64)).to(model.device)  # (B, T)
    with torch.inference_mode():
        model(input_ids=ids)  # warm-up (oneDNN picks its kernels on the first call)
        sync(model)
        start = time.perf_counter()
        model(input_ids=ids)
        sync(model)
        return ids.numel() / (time.perf_counter() - start)


def sync(model) -> None:
    """Wait for the model's device (a GPU runs asynchronously: a timing must wait for its work)."""
    if model.device.type == "cuda":
        torch.cuda.synchronize(model.device)


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
                ids = torch.tensor([head + tail], device=model.device)  # (1, T)
                logp = model(input_ids=ids).logits[0, len(head) - 1 : -1].log_softmax(-1)  # (T_new, V)
                total += logp.gather(1, torch.tensor(tail, device=model.device)[:, None]).sum().item()
                count += len(tail)
    return total / max(count, 1)


def rss_bytes() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * 4096


def peak_rss_during(fn: Callable[[], object]) -> tuple[object, int]:
    """Run `fn`, sampling the resident memory every 10 ms; returns (its result, the process's peak RSS during it:
    every engine's weights are loaded, so differences between engines are their working memory)."""
    peak, done = [0], threading.Event()

    def watch() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], rss_bytes())
            time.sleep(0.01)

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    try:
        result = fn()
    finally:
        done.set()
        thread.join()
    return result, max(peak[0], rss_bytes())


class Baseline:
    """transformers' `generate(do_sample=True)`, K copies of a prefix a batch, the prefix's cache copied K times."""

    def __init__(self, model, tokenizer):
        self.model, self.tokenizer = model, tokenizer

    def run(self, prompts: list[str], cfg: SamplingConfig, seeds: list[int]) -> list[list[Completion]]:
        from transformers import DynamicCache

        from prmkit.generate.backends.hf import cache_name

        tok, out = self.tokenizer, []
        torch.manual_seed(cfg.seed)
        for prompt in prompts:
            ids = tok([prompt] * cfg.n, return_tensors="pt").to(self.model.device)
            cache = DynamicCache(config=self.model.config)
            with torch.inference_mode():
                self.model(input_ids=ids["input_ids"][:1, :-1], use_cache=True, **{cache_name(self.model): cache})
                cache.batch_repeat_interleave(cfg.n)
                seq = self.model.generate(**ids, do_sample=True, temperature=cfg.temperature, top_p=cfg.top_p,
                                          top_k=0, max_new_tokens=cfg.max_new_tokens, pad_token_id=tok.pad_token_id,
                                          **{cache_name(self.model): cache})
            rows = seq[:, ids["input_ids"].shape[1]:].tolist()
            texts = []
            for row in rows:
                n = next((k + 1 for k, t in enumerate(row) if t == tok.eos_token_id), len(row))
                texts.append(Completion(tok.decode(row[:n], skip_special_tokens=True), n))
            out.append(texts)
        return out


def engines(args, model, tokenizer) -> dict[str, Callable[[list[str], SamplingConfig, list[int]], list]]:
    """name -> call(prompts, cfg, seeds), each engine loaded outside the timing; missing engines are left out."""
    rows = args.prefixes * args.k
    made: dict[str, Callable] = {"transformers generate (baseline)": Baseline(model, tokenizer).run}
    for name, dtype in (("prmkit decode fp32", "float32"), ("prmkit decode bf16", "bfloat16")):
        backend = make_backend("transformers", args.model, BackendOptions(batch_size=rows, dtype=dtype))
        made[name] = backend.generate_rendered
    try:
        from prmkit.generate.backends.ct2 import CT2Backend

        ct2 = CT2Backend(args.model, BackendOptions(batch_size=args.k), threads=args.threads, share_prefix=True)
        made["ct2 int8 shared prefix"] = ct2.generate_rendered
    except ImportError:
        print("ctranslate2 is not installed: its row is left out")
    return {name: made[name] for name in ENGINES if name in made and (not args.only or name in args.only)}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default="smollm2-135m")
    p.add_argument("--data", default="../shared/data/gsm8k/train.jsonl", help="GSM8K train.jsonl")
    p.add_argument("--threads", type=int, default=2, help="CPU threads for every engine")
    p.add_argument("--repeats", type=int, default=1)
    p.add_argument("--prefixes", type=int, default=8)
    p.add_argument("--prefix-tokens", type=int, default=60)
    p.add_argument("--k", type=int, default=16)
    p.add_argument("--max-new-tokens", type=int, default=128)
    p.add_argument("--quality-samples", type=int, default=4, help="samples per prefix scored for the quality check")
    p.add_argument("--only", nargs="*", help="engines to run (names as printed)")
    p.add_argument("--profile", help="profile one engine's call (torch.profiler) and print where its time goes")
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    model, tokenizer = load_model(args.model)
    prompts = gsm8k_prefixes(Path(args.data), tokenizer, args.prefixes, args.prefix_tokens)
    made = engines(args, model, tokenizer)
    seeds = list(range(len(prompts)))
    if args.profile:
        return profile(made[args.profile], prompts, SamplingConfig(n=args.k, max_new_tokens=args.max_new_tokens),
                       seeds)
    rates: dict[str, list[float]] = {name: [] for name in made}
    first: dict[str, float] = {}
    memory: dict[str, int] = {}
    texts: dict[str, list[list[str]]] = {}
    for name, call in made.items():  # first-token latency: the same call with one new token
        start = time.perf_counter()
        call(prompts, SamplingConfig(n=args.k, max_new_tokens=1, seed=0), seeds)
        first[name] = time.perf_counter() - start
    for repeat in range(args.repeats):
        for name, call in made.items():
            cfg = SamplingConfig(n=args.k, max_new_tokens=args.max_new_tokens, seed=repeat)
            start = time.perf_counter()
            shifted = [s + repeat for s in seeds]
            out, extra = peak_rss_during(lambda call=call, cfg=cfg, shifted=shifted: call(prompts, cfg, shifted))
            sync(model)
            rates[name].append(sum(c.tokens for cs in out for c in cs) / (time.perf_counter() - start))
            memory[name] = max(memory.get(name, 0), extra)
            texts[name] = [[c.text for c in cs[: args.quality_samples]] for cs in out]
    forward = forward_tokens_per_second(model, tokenizer, prompts, 128)
    bf16_model, _ = load_model(args.model, "bfloat16")
    forward_bf16 = forward_tokens_per_second(bf16_model, tokenizer, prompts, 128)
    base = sum(rates[ENGINES[0]]) / args.repeats if ENGINES[0] in rates else float("nan")
    print(f"{args.prefixes} prefixes x K={args.k} x {args.max_new_tokens} new tokens, threads {args.threads}, "
          f"repeats {args.repeats}; raw forward: fp32 {forward:.0f} tok/s, bf16 {forward_bf16:.0f} tok/s")
    print("| engine | tok/s | vs baseline | vs raw fp32 forward | first token (s) | peak RSS (MB) | "
          "ref log-p / token |\n|---|---:|---:|---:|---:|---:|---:|")
    for name, values in rates.items():
        rate = sum(values) / len(values)
        quality = mean_logprob(model, tokenizer, prompts, texts[name])
        print(f"| {name} | {rate:.1f} | {rate / base:.2f}x | {rate / forward:.3f}x | {first[name]:.2f} | "
              f"{memory[name] / 2**20:.0f} | {quality:.3f} |", flush=True)
    return 0


def profile(call, prompts: list[str], cfg: SamplingConfig, seeds: list[int]) -> int:
    """The engine's call under torch.profiler: the operators that took its time."""
    from torch.profiler import ProfilerActivity
    from torch.profiler import profile as torch_profile

    call(prompts, SamplingConfig(n=cfg.n, max_new_tokens=4), seeds)  # warm-up
    start = time.perf_counter()
    with torch_profile(activities=[ProfilerActivity.CPU]) as prof:
        out = call(prompts, cfg, seeds)
    seconds = time.perf_counter() - start
    tokens = sum(c.tokens for cs in out for c in cs)
    print(f"{tokens} tokens in {seconds:.1f} s under the profiler ({tokens / seconds:.0f} tok/s)")
    print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=18))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
