"""Train a PRM / ORM / 3-class PRM on labelled traces (MCNIG sec 3.3-3.4, PSPO for prm3).

    prm = RewardModel.from_base("smollm2-135m", RewardModelConfig(kind="prm"))
    RewardModelTrainer(prm, TrainConfig(epochs=1, lr=1e-4)).train(train_examples, eval_examples)
    prm.save_pretrained("runs/prm")

An optimiser step sees `batch_traces` traces, the traces of a problem together; the loss of that step is the
paper's L (per-problem mean, then batch mean) even when it is accumulated over micro-batches.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

import torch

from prmkit.models.reward import RewardModel
from prmkit.train.config import TrainConfig
from prmkit.train.data import Example

__all__ = ["Encoded", "RewardModelTrainer", "encode_examples", "problem_batches"]


@dataclass
class Encoded:
    ids: list[int]
    positions: list[int]
    targets: list[list[float]]
    problem_id: str


def encode_examples(prm: RewardModel, examples: list[Example], max_length: int) -> tuple[list[Encoded], int]:
    """Tokenise; asserts one target position per label; the head's truncation policy decides what stays of a
    trace longer than `max_length`. Returns (encoded, number skipped as too long)."""
    out, skipped, head = [], 0, prm.target_head
    for ex in examples:
        ids, positions = prm.encode(ex.question, ex.steps)
        if len(positions) != len(ex.labels):
            raise AssertionError(f"{ex.trace_id}: {len(positions)} separators but {len(ex.labels)} labels")
        keep = head.keep(positions, max_length)
        if keep is None:
            skipped += 1
            continue
        out.append(Encoded(ids[:max_length], [positions[k] for k in keep],
                           head.targets([ex.labels[k] for k in keep]), ex.problem_id))
    return out, skipped


def problem_batches(items: list[Encoded], batch_traces: int, rng: random.Random) -> list[list[Encoded]]:
    """Shuffle problems, keep each problem's traces together, fill batches of about `batch_traces`."""
    by_problem: dict[str, list[Encoded]] = {}
    for it in items:
        by_problem.setdefault(it.problem_id, []).append(it)
    groups = list(by_problem.values())
    rng.shuffle(groups)
    batches, current = [], []
    for g in groups:
        current += g
        if len(current) >= batch_traces:
            batches.append(current)
            current = []
    return batches + ([current] if current else [])


class RewardModelTrainer:
    """AdamW with linear warm-up/decay over `TrainConfig`; full fine-tuning, LoRA, or frozen lower layers."""

    def __init__(self, prm: RewardModel, config: TrainConfig, log: Callable[[str], None] = print):
        self.prm, self.config, self.log = prm, config, log
        if config.threads:
            torch.set_num_threads(config.threads)
        torch.manual_seed(config.seed)
        self._prepare_parameters()

    def _prepare_parameters(self) -> None:
        cfg, model = self.config, self.prm.model
        if cfg.lora_r:
            from peft import LoraConfig, get_peft_model

            # the reserved tokens' embedding (= head, when tied) rows train too: added tokens start random
            lora = LoraConfig(r=cfg.lora_r, lora_alpha=cfg.lora_alpha, lora_dropout=cfg.lora_dropout,
                              target_modules="all-linear",
                              trainable_token_indices=sorted({self.prm.sep_id, *self.prm.class_ids}))
            self.prm.model = get_peft_model(model, lora)
        elif cfg.freeze_layers:
            model.get_input_embeddings().requires_grad_(False)
            for layer in model.get_decoder().layers[: cfg.freeze_layers]:
                layer.requires_grad_(False)
        self.params = self.prm.parameters()

    def _micro_step(self, items: list[Encoded], weights: torch.Tensor) -> float:
        """Forward + backward of one micro-batch; returns its share of the batch loss."""
        batch = self.prm.collate([(it.ids, it.positions) for it in items])
        outputs = self.prm.class_logits(batch)  # (P, C)
        targets = torch.tensor([t for it in items for t in it.targets])  # (P, C)
        loss = self.prm.target_head.loss(outputs, targets, weights)
        loss.backward()
        return loss.item()

    def train(self, train: list[Encoded], held_out: list[Encoded] | None = None) -> list[dict]:
        """Run the epochs; log loss, tokens/s and a held-out check (loss, accuracy) after each epoch."""
        cfg = self.config
        rng = random.Random(cfg.seed)
        plan = [problem_batches(train, cfg.batch_traces, rng) for _ in range(math.ceil(cfg.epochs))]
        plan = [b[: math.ceil(len(b) * min(1.0, cfg.epochs - e))] for e, b in enumerate(plan)]  # a last part-epoch
        total = max(1, sum(map(len, plan)))
        opt = torch.optim.AdamW(self.params, lr=cfg.lr, weight_decay=cfg.weight_decay)
        warm = int(cfg.warmup * total)
        sched = torch.optim.lr_scheduler.LambdaLR(
            opt, lambda s: (s + 1) / max(1, warm) if s < warm else max(0.0, (total - s) / max(1, total - warm)))
        history, step, start, tokens = [], 0, time.time(), 0
        for epoch, batches in enumerate(plan):
            self.prm.train()
            for batch in batches:
                batch = sorted(batch, key=lambda it: len(it.ids))  # less padding per micro-batch
                weights = self.prm.target_head.weights([it.problem_id for it in batch for _ in it.positions])
                loss, k = 0.0, 0
                for i in range(0, len(batch), cfg.micro_batch):
                    part = batch[i : i + cfg.micro_batch]
                    n = sum(len(it.positions) for it in part)
                    loss += self._micro_step(part, weights[k : k + n])
                    k += n
                    tokens += sum(len(it.ids) for it in part)
                if cfg.grad_clip:
                    torch.nn.utils.clip_grad_norm_(self.params, cfg.grad_clip)
                opt.step(), sched.step(), opt.zero_grad()
                step += 1
                elapsed = time.time() - start
                self.log(f"epoch {epoch + 1} step {step}/{total} loss {loss:.4f} "
                         f"{tokens / elapsed:.0f} tok/s elapsed {elapsed:.0f}s")
            record = {"epoch": epoch + 1, "step": step, "seconds": time.time() - start, "tokens": tokens}
            if held_out:
                record.update(self.evaluate(held_out))
                self.log(f"epoch {epoch + 1} held-out loss {record['loss']:.4f} accuracy {record['accuracy']:.3f}")
            history.append(record)
        self.prm.train(False)
        return history

    @torch.inference_mode()
    def evaluate(self, items: list[Encoded]) -> dict[str, float]:
        """Held-out paper loss and accuracy of argmax vs the argmax of the target, over all targets."""
        self.prm.train(False)
        head = self.prm.target_head
        ce_sum, correct, count, losses = 0.0, 0, 0, []
        for i in range(0, len(items), self.config.micro_batch):
            part = items[i : i + self.config.micro_batch]
            logits = self.prm.class_logits(self.prm.collate([(it.ids, it.positions) for it in part]))
            targets = torch.tensor([t for it in part for t in it.targets])
            ce = head.target_losses(logits, targets)
            losses += list(zip([it.problem_id for it in part for _ in it.positions], ce.tolist(), strict=True))
            correct += head.hits(logits, targets)
            count += len(targets)
        weights = head.weights([g for g, _ in losses])
        ce_sum = float((weights * torch.tensor([c for _, c in losses])).sum())
        return {"loss": ce_sum, "accuracy": correct / max(1, count), "targets": count}
