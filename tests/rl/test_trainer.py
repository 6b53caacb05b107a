"""`ProcessGRPOTrainer` against the worked formula: A[i, token] = A_GRPO[i] + coef * A_process[i, segment]."""

import pytest
import torch

from prmkit.data.records import Problem
from prmkit.rewards import OutcomeReward, completion_text, problem_column
from prmkit.rl import PROCESS_ADVANTAGES, ProcessAdvantage, group_advantages, token_advantages
from prmkit.rl.trainer import ProcessGRPOTrainer


class Prefixes:
    """Value of prefix p_t: 0.9, 0.3, 0.9, 0.3, ... (neither rising nor falling, so min-form, progress and PUM's
    differences all differ)."""

    def score_steps(self, question, step_lists):
        return [[0.9 if t % 2 == 0 else 0.3 for t in range(len(steps))] for steps in step_lists]


@pytest.mark.parametrize("name", ["pum", "min", "progress"])
def test_token_advantages_are_grpo_plus_scaled_process(step_policy_dir, tmp_path, name):
    from datasets import Dataset
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import GRPOConfig

    torch.manual_seed(0)
    tok = AutoTokenizer.from_pretrained(step_policy_dir)
    model = AutoModelForCausalLM.from_pretrained(step_policy_dir)
    problems = [Problem(f"p{k}", "cats?", "7") for k in range(2)]
    rows = [{"prompt": "Q:", "problem": problem_column(p)} for p in problems]
    args = GRPOConfig(output_dir=str(tmp_path), num_generations=4, per_device_train_batch_size=8, max_steps=1,
                      max_completion_length=24, report_to=[], use_cpu=True, beta=0.0)
    process = ProcessAdvantage(name, Prefixes(), coef=0.5)
    trainer = ProcessGRPOTrainer(model=model, reward_funcs=[OutcomeReward()], args=args, processing_class=tok,
                                 train_dataset=Dataset.from_list(rows), process=process)
    inputs = [rows[0]] * 4 + [rows[1]] * 4
    trainer.model.train()  # metrics go to the "train" log
    out = trainer._generate_and_score_completions(inputs)
    adv, mask = out["advantages"], out["completion_mask"].bool()
    assert adv.shape == out["completion_ids"].shape  # (B, T)
    ids = [row[m].tolist() for row, m in zip(out["completion_ids"], mask, strict=True)]
    texts = [completion_text(tok.decode(r, skip_special_tokens=True)) for r in ids]
    rewards = OutcomeReward()(prompts=[], completions=texts, problem=[r["problem"] for r in inputs])
    grpo = group_advantages(rewards, 4)
    batch = process.batch(tok, ids, texts, ["cats?"] * 8, [r["problem"] for r in inputs])
    # the pure function of `name` on the prefix values at each segment end (here one step a segment)
    values = [[0.9 if t % 2 == 0 else 0.3 for t in range(len(set(s) - {-1}))] for s in batch.token_segments]
    groups = [PROCESS_ADVANTAGES[name](values[:4]), PROCESS_ADVANTAGES[name](values[4:])]
    assert batch.segment_advantages == [pytest.approx(a) for a in groups[0] + groups[1]]
    expected = token_advantages(grpo, batch.token_segments, groups[0] + groups[1], 0.5)
    for i in range(8):
        assert adv[i][mask[i]].tolist() == pytest.approx(expected[i], abs=1e-4)
    assert any(len(set(s)) > 1 for s in batch.token_segments)  # some completion has several steps
    assert any(len(a) > 1 and max(a) != min(a) for a in batch.segment_advantages) or any(grpo)
    assert trainer._metrics["train"]["adv/process_abs"] and trainer._metrics["train"]["adv/grpo_abs"]
