"""`prmkit generate`: sample K step-delimited CoTs per problem, validate them, filter (MCNIG paper, sec. 3.1).

Writes every generated pool to `--raw` (append-only: a re-run resumes), then the filtered pools to `--output`.

    prmkit generate --data demo --k 8 --output runs/demo/pools.jsonl
"""

from __future__ import annotations

import argparse
from pathlib import Path

from prmkit.generate import BACKENDS, BackendOptions, SamplingConfig, run_generation
from prmkit.models.loading import DEFAULT_MODEL


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--data", required=True, help="demo | humaneval | a GSM8K-style, Problem or Pool jsonl file"
    )
    p.add_argument(
        "--domain",
        choices=["math", "python", "sql", "choice"],
        default=None,
        help="override the problems' domain (default: the data's own)",
    )
    p.add_argument("--limit", type=int, default=None, help="use only the first N problems")
    p.add_argument("--k", type=int, default=8, help="samples per problem (K)")
    p.add_argument("--backend", choices=list(BACKENDS), default="transformers")
    p.add_argument("--model", default=DEFAULT_MODEL, help="embedded name, local HF dir, or served model name")
    p.add_argument("--temperature", type=float, default=1.0, help="sampling temperature (paper: 1.0)")
    p.add_argument("--top-p", type=float, default=0.95, help="nucleus sampling (paper: 0.95)")
    p.add_argument("--max-new-tokens", type=int, default=512)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--batch-size", type=int, default=16, help="sequences per batch (transformers)")
    p.add_argument("--dtype", default=None,
                   help="weights dtype (default: float32 for transformers, the model's own for vllm)")
    p.add_argument("--base-url", default="http://127.0.0.1:8000", help="OpenAI-compatible server (openai)")
    p.add_argument("--no-chat", action="store_true",
                   help="send few-shot Q/A prompts as raw text, not in the model's chat template (transformers, vllm)")
    p.add_argument("--output", required=True, help="filtered Pool jsonl")
    p.add_argument(
        "--raw", default=None, help="all generated pools, resumable (default: OUTPUT with .raw.jsonl)"
    )
    p.add_argument(
        "--no-filter", action="store_true", help="write every generated trace (e.g. for a test set)"
    )
    p.add_argument("--max-traces", type=int, default=8, help="traces kept per problem by the filter")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    output = Path(args.output)
    raw = Path(args.raw) if args.raw else output.with_name(output.name.removesuffix(".jsonl") + ".raw.jsonl")
    cfg = SamplingConfig(
        n=args.k,
        temperature=args.temperature,
        top_p=args.top_p,
        max_new_tokens=args.max_new_tokens,
        seed=args.seed,
    )
    options = BackendOptions(batch_size=args.batch_size, base_url=args.base_url, chat=not args.no_chat,
                             dtype=args.dtype)
    run_generation(
        args.data,
        output,
        raw,
        cfg,
        backend=args.backend,
        model=args.model,
        options=options,
        domain=args.domain,
        limit=args.limit,
        apply_filter=not args.no_filter,
        max_traces=args.max_traces,
        progress=not args.no_progress,
    )
    return 0
