"""One prepared device check: prmkit's decoding and labeling against the raw forward pass of the same model.

    PRMKIT_DEVICE=cuda python3 benchmarks/gpu_check.py      # one GPU, <= 8 minutes
    python3 benchmarks/gpu_check.py --small                 # 2 CPU cores, <= 5 minutes

The model has SmolLM2-135M's shape (the embedded model's config, copied below) and random weights, so it needs no
model hub and every rollout runs to its token limit; the tokenizer is a word-level one made in memory over the
model's 49,152 ids. Only torch and transformers are needed: prmkit's rows run when prmkit is importable
(`PYTHONPATH=src`) and are printed as skipped otherwise. The device is `PRMKIT_DEVICE` (cpu by default, cuda).

Rows, each in tok/s and as a ratio to the raw forward of the same dtype:
  forward   - one batched causal forward (B x T tokens, the LM head on the last position only), fp32 and bf16;
  generate  - transformers `generate(do_sample=True)`, G prompts x K copies, inputs on the device;
  decode    - prmkit's rollout decode (`generate_rendered`) at R rows (R / K Math-Shepherd prefixes, K each);
  mcnig     - the MCNIG labeler's calls on synthetic candidate pools (tokens fed to the model);
  math-shepherd - the Math-Shepherd labeler's calls on the same kind of pools (tokens generated), its batch of
              `--batch-size` rows as `prmkit label --batch-size`;
  train     - one training step (LM loss, backward, AdamW) on B x T tokens, fp32.
The labelers run as the label recipe runs them here (`label_stream` over all pools where the labeler has it, else
one `label` call per pool), without writing files. The last line reads
`ratios: device=<cpu|cuda> mcnig/forward=<x> math-shepherd/decode=<y> math-shepherd/forward=<z>`: MCNIG against the
fp32 forward, Math-Shepherd's generated tok/s against prmkit's decode at its batch's rows and dtype, and against the
fp32 forward.
"""

from __future__ import annotations

import argparse
import os
import random
import time
from dataclasses import dataclass

import torch

# SmolLM2-135M-Instruct (the embedded model "smollm2-135m"): its config.json
SMOLLM2_135M = dict(vocab_size=49152, hidden_size=576, intermediate_size=1536, num_hidden_layers=30,
                    num_attention_heads=9, num_key_value_heads=3, head_dim=64, max_position_embeddings=8192,
                    rms_norm_eps=1e-5, rope_theta=100000.0, tie_word_embeddings=True, bos_token_id=1,
                    eos_token_id=2, pad_token_id=2, hidden_act="silu")
_TEXT = ("Tom has apples and buys more boxes of pens each costs dollars how many does he have now left after "
         "so the answer is step then total price sum of times minus plus equals half twice")
WORDS = _TEXT.split(" ")


@dataclass
class Sizes:
    forward: tuple[int, int]  # (B, T)
    generate: tuple[int, int]  # (prompts, K copies)
    new_tokens: int  # per generate / decode / rollout row
    decode_rows: tuple[int, ...]
    k: int  # rollouts per prefix (decode and Math-Shepherd)
    batch_size: int  # Math-Shepherd's rows per generation batch
    mcnig_pools: int
    ms_pools: int
    traces: int  # per pool
    train: tuple[int, int]


FULL = Sizes((64, 512), (64, 16), 128, (128, 1024), 8, 1024, 96, 24, 4, (8, 512))
SMALL = Sizes((4, 256), (4, 4), 16, (32, 128), 4, 128, 12, 6, 4, (2, 128))


def device() -> str:
    name = os.environ.get("PRMKIT_DEVICE", "cpu").strip().lower() or "cpu"
    return "cuda" if name == "auto" and torch.cuda.is_available() else ("cpu" if name == "auto" else name)


def timed(fn, repeats: int = 1, warm=None) -> float:
    """Seconds of one call of `fn` (the mean of `repeats`, after a warm-up call of `warm`, default `fn`), the
    device synchronised."""
    (warm or fn)()
    sync()
    start = time.perf_counter()
    for _ in range(repeats):
        fn()
    sync()
    return (time.perf_counter() - start) / repeats


def sync() -> None:
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def make_model(dev: str):
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    return LlamaForCausalLM(LlamaConfig(**SMOLLM2_135M)).to(dev).eval()


def make_tokenizer():
    """A word-level tokenizer over all 49,152 ids: WORDS and the digits as words, "w<id>" for the others."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    words = ["<unk>", "<s>", "<|endoftext|>", *WORDS, *map(str, range(1000)), "[STEP]", "Question:", "Answer:"]
    vocab = {w: i for i, w in enumerate(dict.fromkeys(words))}
    vocab |= {f"w{i}": i for i in range(len(vocab), SMOLLM2_135M["vocab_size"])}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<unk>", bos_token="<s>",
                                   eos_token="<|endoftext|>", pad_token="<|endoftext|>")


def forward_rate(model, b: int, t: int, repeats: int) -> float:
    ids = torch.randint(3, 40000, (b, t), generator=torch.Generator().manual_seed(0)).to(model.device)  # (B, T)
    with torch.inference_mode():
        return b * t / timed(lambda: model(input_ids=ids, logits_to_keep=1), repeats,
                             warm=lambda: model(input_ids=ids[:1, :64], logits_to_keep=1))


def generate_rate(model, prompts: int, k: int, new: int) -> float:
    ids = torch.randint(3, 40000, (prompts, 64), generator=torch.Generator().manual_seed(1)).to(model.device)
    ids = ids.repeat_interleave(k, 0)  # (G * K, 64)
    out = []

    def run(tokens: int = new):
        with torch.inference_mode():
            out.append(model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), do_sample=True, top_p=0.95,
                                      top_k=0, max_new_tokens=tokens, pad_token_id=2))
    seconds = timed(run, warm=lambda: run(2))
    rows = out[-1][:, ids.shape[1]:]  # (G * K, new)
    return int(((rows == 2).cumsum(-1) == 0).sum() + (rows == 2).any(-1).sum()) / seconds


def train_rate(model, b: int, t: int) -> float:
    ids = torch.randint(3, 40000, (b, t), generator=torch.Generator().manual_seed(2)).to(model.device)
    model.train()
    optim = torch.optim.AdamW(model.parameters(), lr=1e-5)

    def step():
        model(input_ids=ids, labels=ids).loss.backward()
        optim.step()
        optim.zero_grad(set_to_none=True)
    seconds = timed(step)
    model.eval()
    return b * t / seconds


def synthetic_pools(count: int, traces: int, seed: int = 0) -> list:
    """Candidate pools of GSM8K's shape: a question, `traces` CoTs of 3-6 steps, the first right, the others not."""
    from prmkit.data.records import Pool

    rng = random.Random(seed)
    text = lambda n: " ".join(rng.choice(WORDS) if rng.random() < 0.7 else str(rng.randrange(100))  # noqa: E731
                              for _ in range(n))
    pools = []
    for p in range(count):
        answer = str(rng.randrange(10, 99))
        rows = []
        for t in range(traces):
            said = answer if t == 0 else str(rng.randrange(100, 999))
            steps = [text(rng.randrange(8, 16)) for _ in range(rng.randrange(2, 6))] + [f"so the answer is {said}"]
            rows.append({"id": f"q{p}/{t}", "problem_id": f"q{p}", "steps": steps, "answer": said,
                         "correct": t == 0})
        pools.append(Pool.from_dict({"problem": {"id": f"q{p}", "question": text(40), "answer": answer},
                                     "traces": rows}))
    return pools


def label_all(labeler, pools, method: str) -> tuple[list, float]:
    """The labeler's calls as the label recipe makes them here, and their seconds (a warm-up call first)."""
    items = [(p, {method: {t.id for t in p.traces}}) for p in pools]
    labeler.label(*items[0])
    sync()
    start = time.perf_counter()
    stream = getattr(labeler, "label_stream", None)
    done = list(stream(items)) if stream else [labeler.label(*item) for item in items]
    sync()
    return done, time.perf_counter() - start


def decode_rate(backend, prompts: list[str], cfg) -> float:
    """Generated tok/s of one `generate_rendered` call (K rows a prompt; a 2-token call warms up)."""
    from dataclasses import replace

    seeds, out = list(range(len(prompts))), []
    seconds = timed(lambda: out.append(backend.generate_rendered(prompts, cfg, seeds)),
                    warm=lambda: backend.generate_rendered(prompts, replace(cfg, max_new_tokens=2), seeds))
    return sum(c.tokens for cs in out[-1] for c in cs) / seconds


def prmkit_rows(model, tok, sizes: Sizes, dtype: str, decode_rows: tuple[int, ...]) -> dict[str, float]:
    """prmkit's decode at each of `decode_rows`, and (fp32) the MCNIG and Math-Shepherd labelers: tok/s each."""
    from prmkit.generate.backends import BackendOptions, SamplingConfig
    from prmkit.generate.backends.hf import TransformersBackend
    from prmkit.generate.prompts import build_prompt
    from prmkit.generate.rollout import partial_answer
    from prmkit.label.information import InformationConfig, InformationLabeler, make_scorer
    from prmkit.label.math_shepherd import MathShepherdLabeler
    from prmkit.label.rollout_labeling import RolloutLabelConfig

    rates = {}
    cfg = SamplingConfig(n=sizes.k, max_new_tokens=sizes.new_tokens, seed=0)
    pools = synthetic_pools(sizes.ms_pools, sizes.traces)
    texts = [partial_answer(build_prompt(p.problem), t.steps[:n]) for p in pools for t in p.traces
             for n in range(1, len(t.steps))]
    for rows in decode_rows:
        backend = TransformersBackend((model, tok), BackendOptions(batch_size=rows))
        prompts = (texts * (1 + rows // len(texts)))[: rows // sizes.k]
        rates[f"decode {rows} rows {dtype}"] = decode_rate(backend, prompts, cfg)
    if dtype != "fp32":
        return rates
    config = InformationConfig(model="in memory")
    mcnig = InformationLabeler(config, ["mcnig"], scorer=make_scorer(model, tok, config))
    done, seconds = label_all(mcnig, synthetic_pools(sizes.mcnig_pools, sizes.traces, seed=1), "mcnig")
    rates["mcnig fp32"] = sum(d.cost.tokens_read for d in done) / seconds
    config = RolloutLabelConfig(model="in memory", k=sizes.k, max_new_tokens=sizes.new_tokens, chat=False,
                                batch_size=sizes.batch_size)
    backend = TransformersBackend((model, tok), BackendOptions(batch_size=sizes.batch_size))
    shepherd = MathShepherdLabeler(config, ["math-shepherd"], backend=backend)
    done, seconds = label_all(shepherd, pools, "math-shepherd")
    rates["math-shepherd fp32"] = sum(d.cost.tokens_generated for d in done) / seconds
    return rates


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--small", action="store_true", help="CPU sizes (<= 5 minutes on 2 cores)")
    ap.add_argument("--threads", type=int, default=None, help="CPU threads (default: torch's)")
    args = ap.parse_args()
    sizes, dev = (SMALL if args.small else FULL), device()
    if args.threads:
        torch.set_num_threads(args.threads)
    repeats = 3  # the forward is every ratio's denominator: the mean of 3 calls (one call varies ~10% on a CPU)
    print(f"device {dev}, torch {torch.__version__}, threads {torch.get_num_threads()}, sizes {sizes}", flush=True)
    fp32 = make_model(dev)
    models = {"fp32": fp32, "bf16": make_model(dev).to(torch.bfloat16)}
    forward = {d: forward_rate(m, *sizes.forward, repeats) for d, m in models.items()}
    rates: dict[str, float] = {}
    for d in models:
        print(f"forward {d} ({sizes.forward[0]} x {sizes.forward[1]}): {forward[d]:.0f} tok/s", flush=True)
    for d, m in models.items():
        rates[f"transformers generate {d}"] = generate_rate(m, *sizes.generate, sizes.new_tokens)
        report(rates, forward)
    try:
        tok = make_tokenizer()
        for d, m in models.items():  # bf16 decode at the smaller row count only on a CPU (emulated bf16 is slow)
            rows = sizes.decode_rows if dev != "cpu" or d == "fp32" else sizes.decode_rows[:1]
            rates |= prmkit_rows(m, tok, sizes, d, rows)
            report(rates, forward)
    except ImportError as err:
        print(f"skipped: prmkit decode, MCNIG and Math-Shepherd labeling (prmkit not importable: {err})")
    rates["train step fp32"] = train_rate(fp32, *sizes.train)
    report(rates, forward)
    nan = float("nan")
    mcnig, shepherd = rates.get("mcnig fp32", nan), rates.get("math-shepherd fp32", nan)
    decode = rates.get(f"decode {sizes.batch_size} rows fp32", nan)
    print(f"ratios: device={dev.split(':')[0]} mcnig/forward={mcnig / forward['fp32']:.3f} "
          f"math-shepherd/decode={shepherd / decode:.3f} math-shepherd/forward={shepherd / forward['fp32']:.4f}")
    return 0


_printed: set[str] = set()


def report(rates: dict[str, float], forward: dict[str, float]) -> None:
    """Print the rows of `rates` not printed yet: tok/s and the ratio to the raw forward of the row's dtype."""
    for name, rate in rates.items():
        if name not in _printed:
            _printed.add(name)
            d = "bf16" if name.endswith("bf16") else "fp32"
            print(f"{name}: {rate:.0f} tok/s = {rate / forward[d]:.3f}x forward {d}", flush=True)


if __name__ == "__main__":
    raise SystemExit(main())
