"""Labeling compute of a `prmkit bench` run in parameter-tokens, per labeler and level (pum_paper sec 4.6, table 3).

PUM's cost claim ("Math-Shepherd requires roughly 18.5x more labeling computation than PUM-Math") counts
parameters x tokens: a 7B completer's tokens weigh more than a 2B student's. The bench's ledger counts tokens per
trace; this script weighs them by the size of the model that spent them: the run's `--model` for IG, MCNIG,
Math-Shepherd and OmegaPRM, each PUM student's own model for its own tokens (the ledger keeps them apart under
"students"). Parameters are counted from each model's config on the meta device (no weights loaded): those that
compute on every token, the output projection once and the input embedding lookup not, which for the embedded
models is their nominal size. Prints, per level and over all levels, tokens read and generated,
parameter-tokens of both and of the generated tokens alone, and each labeler's ratio to `--against`; `--json`
writes the same figures. Counted on the traces every labeler of the run holds (a run still labeling: the
problems all of them finished).

    python benchmarks/bench_compute.py --run runs/bench300_pum48 --against pum
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from functools import cache
from pathlib import Path

from prmkit.data.jsonl import read_records
from prmkit.data.records import StepLabels
from prmkit.label import PumLabelConfig


def run_settings(run: Path) -> dict:
    """The run's settings: its report's, or while it still labels (no report yet) its `settings.json`, with the
    bench's default students where that file does not name them."""
    from prmkit.experiments.bench import BenchConfig

    if (run / "report.json").exists():
        return json.loads((run / "report.json").read_text())["settings"]
    return {"students": BenchConfig().students} | json.loads((run / "settings.json").read_text())


def student_models(settings: dict) -> dict[str, str]:
    """{student name: model} of a bench run's `--students` (as `prmkit bench` parses them)."""
    texts = [s.strip() for s in settings["students"].split(",") if s.strip()]
    return {s.name: s.model for s in PumLabelConfig(students=texts).student_specs()}


@cache
def parameters(model: str) -> int:
    """Parameters of `model` (embedded name or local folder) that compute on every token, counted on the meta
    device from its config: all but the input embedding table (a lookup), the output projection counted once
    whether or not it is tied to it (SmolLM2-135M: 134.5M; Gemma-3-270M: 268M, the models' nominal sizes)."""
    from accelerate import init_empty_weights
    from transformers import AutoConfig, AutoModelForCausalLM

    from prmkit.models.loading import resolve_model

    config = AutoConfig.from_pretrained(resolve_model(model))
    with init_empty_weights():
        net = AutoModelForCausalLM.from_config(config)
    emb, head = net.get_input_embeddings().weight, net.get_output_embeddings().weight
    return sum(p.numel() for p in net.parameters() if p is not emb) + (head.numel() if head is emb else 0)


def spent(run: Path) -> dict[str, dict[str, dict[str, float]]]:
    """{labeler: {level: {tokens_read, tokens_generated, param_tokens, param_tokens_generated, traces}}}."""
    settings = run_settings(run)
    level = {t.trace_id: str(t.params["level"]) for t in read_records(run / "truth.jsonl", StepLabels.from_dict)}
    students = student_models(settings)
    records = {path.stem: list(read_records(path, StepLabels.from_dict))
               for path in sorted((run / "labels").glob("*.jsonl")) if path.stem != "seconds"}
    # the traces every labeler holds (a run still labeling: the problems all of them finished), as the report
    common = set.intersection(*({r.trace_id for r in recs} for recs in records.values())) if records else set()
    out: dict[str, dict[str, dict[str, float]]] = {}
    for name, recs in records.items():
        sums: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
        for rec in recs:
            if rec.trace_id not in common:
                continue
            cost = rec.cost or {}
            if name == "pum":
                if "students" not in cost:
                    raise SystemExit(f"{run}/labels/pum.jsonl: records without each student's tokens (labeled "
                                     "before the ledger kept them apart): re-label PUM to count its compute")
                parts = [(students[s], part) for s, part in cost["students"].items()]
            else:
                parts = [(settings["model"], cost)]
            for lev in (level[rec.trace_id], "all"):
                row = sums[lev]
                row["traces"] += 1
                for model, part in parts:
                    size = parameters(model)
                    row["tokens_read"] += part.get("tokens_read", 0)
                    row["tokens_generated"] += part.get("tokens_generated", 0)
                    row["param_tokens"] += size * (part.get("tokens_read", 0) + part.get("tokens_generated", 0))
                    row["param_tokens_generated"] += size * part.get("tokens_generated", 0)
        out[name] = {lev: dict(row) for lev, row in sums.items()}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--run", required=True, help="output folder of prmkit bench")
    ap.add_argument("--against", default="pum", help="the labeler every ratio is taken to")
    ap.add_argument("--json", help="also write the figures here")
    args = ap.parse_args()
    run = Path(args.run)
    figures = spent(run)
    if args.against not in figures:
        raise SystemExit(f"{args.against} is not among the run's labelers: {sorted(figures)}")
    settings = run_settings(run)
    models = {settings["model"], *student_models(settings).values()}
    print("parameters: " + ", ".join(f"{m} {parameters(m):,}" for m in sorted(models)))
    print("| labeler | level | traces | tokens read | tokens generated | parameter-tokens (read + generated) | "
          f"over {args.against} | parameter-tokens generated | over {args.against} |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    base = figures[args.against]
    for name, levels in figures.items():
        for lev in sorted(levels, key=lambda x: (x == "all", x)):
            row, ref = levels[lev], base.get(lev)
            ratio = row["param_tokens"] / ref["param_tokens"] if ref and ref["param_tokens"] else float("nan")
            ratio_g = (row["param_tokens_generated"] / ref["param_tokens_generated"]
                       if ref and ref["param_tokens_generated"] else float("nan"))
            print(f"| {name} | {lev} | {row['traces']:.0f} | {row['tokens_read']:,.0f} | "
                  f"{row['tokens_generated']:,.0f} | {row['param_tokens']:.3g} | {ratio:.2f}x | "
                  f"{row['param_tokens_generated']:.3g} | {ratio_g:.2f}x |")
    if args.json:
        Path(args.json).write_text(json.dumps({"parameters": {m: parameters(m) for m in sorted(models)},
                                               "labelers": figures}, indent=1) + "\n")


if __name__ == "__main__":
    main()
