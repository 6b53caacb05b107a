"""`prmkit rl grpo`: the wiring of one GRPO run (the components are in rewards/ and rl/; outputs: docs/rl.md)."""

import json
import os
import resource
from collections.abc import Callable
from pathlib import Path
from typing import Any

from prmkit.data.lengths import check_lengths
from prmkit.data.manifest import fixed_settings, keep_settings, may_change
from prmkit.data.outputs import claim_outputs, claims
from prmkit.data.records import Pool, Problem
from prmkit.data.templates import check_template, prompt_template
from prmkit.models.loading import context_length, load_trainable, resolve_model
from prmkit.models.scorer_spec import parse_scorer_spec
from prmkit.rewards.spec import Scorers, build_rewards, parse_reward_spec, parse_term
from prmkit.rl.advantages import PROCESS_ADVANTAGES
from prmkit.rl.config import SETTINGS, RLConfig
from prmkit.rl.data import grpo_rows, select_problems
from prmkit.rl.heldout_curve import HeldoutCurve
from prmkit.rl.logs import MetricsLog, plot_curves, read_metrics
from prmkit.rl.process import ProcessAdvantage
from prmkit.rl.rollout_values import PROVERS
from prmkit.train.arguments import trainer_overrides

__all__ = ["SETTINGS", "grpo_arguments", "run_grpo"]


def grpo_arguments(config: RLConfig, output: str | os.PathLike[str], weights: list[float]) -> Any:
    """The `trl.GRPOConfig` of a run (prmkit's names -> TRL's; `trainer_args` passed through last)."""
    import torch
    from trl import GRPOConfig

    gpu = torch.cuda.is_available()
    kwargs: dict[str, Any] = dict(
        output_dir=str(output), max_steps=config.steps, num_generations=config.group_size,
        per_device_train_batch_size=config.group_size * config.prompts_per_step, gradient_accumulation_steps=1,
        learning_rate=config.lr, beta=config.beta, temperature=config.temperature, top_p=config.top_p,
        max_completion_length=config.max_new_tokens, reward_weights=weights, seed=config.seed, logging_steps=1,
        save_strategy="steps", save_steps=config.save_steps, save_total_limit=config.save_total_limit or None,
        report_to=[], remove_unused_columns=False, dataloader_pin_memory=False, use_cpu=not gpu,
        # TRL turns bf16 and gradient checkpointing on; on a CPU without native bf16 both only cost time
        bf16=gpu, gradient_checkpointing=gpu,
    )
    return GRPOConfig(**(kwargs | trainer_overrides(config.trainer_args)))


def _rewards(config: RLConfig, scorers: Scorers) -> tuple[list[Any], list[float]]:
    """The spec's reward functions; `outcome` is added with weight 0 when absent, so accuracy is always logged."""
    funcs, weights = build_rewards(config.reward, scorers)
    if "outcome" not in {t.name for t in parse_reward_spec(config.reward)}:
        extra, _ = build_rewards("outcome", scorers)
        funcs, weights = [*funcs, *extra], [*weights, 0.0]
    return funcs, weights


def _process(config: RLConfig, scorers: Scorers, train: list[Problem]) -> ProcessAdvantage | None:
    """The process advantages of `--process NAME:SCORER`; SCORER `rollouts:PROVER[,KEY=VALUE]` samples the prover from
    each prefix (`rl.rollout_values`), any other is a scorer spec."""
    if not config.process:
        return None
    term = parse_term(config.process, PROCESS_ADVANTAGES)
    if not term.model:
        raise ValueError(f"--process needs a scorer: '{term.name}:PATH'")
    kind, colon, rest = term.model.partition(":")
    if colon and kind in PROVERS:
        _, prover, options = parse_scorer_spec(rest)
        scorer = PROVERS[kind](prover, train, **options)
    else:
        scorer = scorers[term.model]
    return ProcessAdvantage(term.name, scorer, config.process_coef, config.max_segments)


def _usage() -> dict[str, float]:
    """This process's CPU seconds (user + system, itself and its children) and peak resident memory in GB."""
    usage = [resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
    return {"cpu_seconds_this_run": round(sum(u.ru_utime + u.ru_stime for u in usage), 1),
            "peak_rss_gb": round(max(u.ru_maxrss for u in usage) / 2**20, 2)}  # ru_maxrss: KiB on Linux


def run_grpo(config: RLConfig, scorers: Scorers | None = None, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Train the policy with GRPO (+ process advantages) into `config.output`; returns the report (also written to
    report.json). `scorers`: ready StepScorers by the model names of the specs (else checkpoints are loaded)."""
    output = config.output
    with claim_outputs(**claims(config)):  # before the policy loads; one run per output
        return _run_grpo(config, output, scorers, log)


def _run_grpo(config: RLConfig, output: str | os.PathLike[str], scorers: Scorers | None,
              log: Callable[[str], None]) -> dict[str, Any]:
    from datasets import Dataset

    from prmkit.rl.trainer import ProcessGRPOTrainer

    out, scorers = Path(output), Scorers() if scorers is None else scorers
    check_template(resolve_model(config.model), config.template)  # a warm start is trained on its own prompt
    template = prompt_template(config.template)
    train = select_problems(config.data, config.problems_range)
    heldout = (select_problems(config.heldout_data or config.data, config.heldout_range)
               if config.heldout_range else [])
    if overlap := {p.question for p in train} & {p.question for p in heldout}:
        raise ValueError(f"{len(overlap)} held-out problems are training problems too (e.g. '{next(iter(overlap))}'): "
                         "choose disjoint ranges or files")
    check_lengths([Pool(p, []) for p in train + heldout], context_length(config.model), "the policy",
                  flag=None)  # before the policy loads
    funcs, weights = _rewards(config, scorers)
    process = _process(config, scorers, train)
    model, tokenizer, lora = load_trainable(config.model, config.threads, config.lora_r, config.lora_alpha)
    from prmkit.train.recipe import last_checkpoint  # a checkpoint cut short by a kill is passed over

    resume = last_checkpoint(out) if config.resume else None
    if not resume and last_checkpoint(out):
        raise ValueError(f"{out} has checkpoints already: pass --resume to continue, or choose a new output")
    out.mkdir(parents=True, exist_ok=True)
    # the held-out curve and metrics in this output are continued: only by the same run
    keep_settings(out / SETTINGS, fixed_settings(config), "an RL run", skip=may_change(config))
    held = HeldoutCurve(config, heldout, tokenizer, template, out, log)
    held.measure(0, model)
    trainer = ProcessGRPOTrainer(
        model=model, reward_funcs=funcs, args=grpo_arguments(config, out, weights), processing_class=tokenizer,
        train_dataset=Dataset.from_list(grpo_rows(train, tokenizer, config.chat, template)), peft_config=lora,
        callbacks=[MetricsLog(out / "metrics.jsonl"), held], process=process)
    trainer.train(resume_from_checkpoint=resume)
    whole = trainer.elapsed()  # training seconds of the whole run, across resumes
    held.measure(trainer.state.global_step, trainer.model)
    final = trainer.model.merge_and_unload() if hasattr(trainer.model, "merge_and_unload") else trainer.model
    final.save_pretrained(out / "final")
    tokenizer.save_pretrained(out / "final")
    rows = read_metrics(out / "metrics.jsonl")
    plot_curves(rows, out / "curves.png", f"GRPO: reward {config.reward}, process {config.process or 'none'}")
    report = {"config": config.__dict__, "train_seconds": whole,
              "seconds_this_run": whole - trainer.before, "steps": len(rows), "heldout": held.results,
              "heldout_curve": [held.rows[s] for s in sorted(held.rows)],
              "generated_tokens": round(sum(r.get("completions/mean_length", 0.0) for r in rows)
                                        * config.group_size * config.prompts_per_step),
              "train_problems": len(train), "heldout_problems": len(heldout)} | _usage()
    (out / "report.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return report


def format_rl(report: dict[str, Any], cfg: Any) -> str:
    held, text = report["heldout"], ""
    if "before" in held and "after" in held:
        text = (f"held-out accuracy {held['before']['accuracy']:.3f} -> {held['after']['accuracy']:.3f} "
                f"({report['heldout_problems']} problems x {held['after']['samples'] // report['heldout_problems']} "
                "samples)\n")
    return text + f"{report['steps']} steps in {report['train_seconds']:.0f} s -> {cfg.output}"
