"""Magnitude of process advantages vs GRPO advantages at the start of training (PUM sec 4.4 reports ~10x for PUM).

Samples G completions per problem from the policy before any update (the prompts and settings of `prmkit rl grpo`),
computes the rule-based GRPO advantage of each completion (outcome reward, TRL's group formula) and the PRM process
advantage of each segment (PUM D.4: step score - 0.5, `--process prm:MODEL`), and prints the mean absolute value of
each per completion token, as `ProcessGRPOTrainer` logs them (`adv/grpo_abs`, `adv/process_abs`), and their ratio.

    python benchmarks/rl_advantage_ratio.py --prm runs/prm --problems 0:20 --group-size 4 --template generate_math_1shot
"""

from __future__ import annotations

import argparse
import json

import torch

from prmkit.data.templates import load_template
from prmkit.domains import STOP
from prmkit.generate.backends.base import BackendOptions, SamplingConfig
from prmkit.generate.backends.hf import TransformersBackend
from prmkit.generate.prompts import build_prompt
from prmkit.models.loading import load_model
from prmkit.rewards import OutcomeReward, Scorers, problem_column
from prmkit.rl import ProcessAdvantage, group_advantages
from prmkit.rl.data import select_problems


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--prm", required=True)
    p.add_argument("--policy", default="smollm2-135m")
    p.add_argument("--data", default="demo")
    p.add_argument("--problems", default="0:20")
    p.add_argument("--group-size", type=int, default=4)
    p.add_argument("--template", default=None)
    p.add_argument("--max-new-tokens", type=int, default=64)
    p.add_argument("--temperature", type=float, default=1.0)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    torch.set_num_threads(1)
    model, tok = load_model(args.policy)
    backend = TransformersBackend((model, tok), BackendOptions(batch_size=args.group_size))
    template = load_template(args.template) if args.template else None
    process = ProcessAdvantage("prm", Scorers()[args.prm], coef=0.5)
    grpo_tokens = process_tokens = tokens = 0.0
    zero_groups, correct, total = 0, 0.0, 0
    for problem in select_problems(args.data, args.problems):
        cfg = SamplingConfig(args.group_size, args.temperature, 1.0, args.max_new_tokens, args.seed, STOP["math"])
        texts = [c.text for c in backend.generate([build_prompt(problem, template)], cfg)[0]]
        column = [problem_column(problem)] * len(texts)
        rewards = OutcomeReward()(prompts=[], completions=texts, problem=column)
        grpo = group_advantages(rewards, len(texts))
        ids = [tok(t, add_special_tokens=False)["input_ids"] for t in texts]
        batch = process.batch(tok, ids, texts, [problem.question] * len(texts), [problem.id] * len(texts))
        for a, segs, adv in zip(grpo, batch.token_segments, batch.segment_advantages, strict=True):
            grpo_tokens += abs(a) * len(segs)
            process_tokens += sum(abs(adv[s]) for s in segs if s >= 0)
            tokens += len(segs)
        zero_groups += len(set(rewards)) == 1
        correct += sum(rewards)
        total += len(rewards)
    result = {"groups": total // args.group_size, "accuracy": correct / total, "groups_without_signal": zero_groups,
              "grpo_abs": grpo_tokens / tokens, "process_abs": process_tokens / tokens}
    result["ratio"] = result["process_abs"] / result["grpo_abs"] if result["grpo_abs"] else float("inf")
    result["ratio_with_coef_0.5"] = 0.5 * result["ratio"]
    print(json.dumps(result))


if __name__ == "__main__":
    main()
