"""Reward-model training on `transformers.Trainer`: prmkit supplies the module, the batches and `compute_loss`;
checkpoints are prmkit reward models (+ a LoRA run's trainable parameters, `prmkit_trainable.pt`)."""

import json
import os
import time
from pathlib import Path
from typing import Any

import torch
from torch.utils.data import DataLoader
from transformers import Trainer

from prmkit.models.reward import RewardModel
from prmkit.train.batches import Encoded, PlannedBatchSampler, RewardCollator, TraceDataset
from prmkit.train.config import TrainConfig

__all__ = ["RewardForward", "RewardModelTrainer", "RunClock", "freeze_embeddings_but", "held_out_check",
           "prepare_parameters", "trainable_parameters"]

TRAINABLE = "prmkit_trainable.pt"
# Trainers without `loss_is_scaled_for_ga` divide each micro-batch's loss, already its share of the step's L
# (MCNIG sec 3.3), by the accumulation steps: `compute_loss` multiplies it back there
TRAINER_DIVIDES_BY_GA = not hasattr(Trainer, "loss_is_scaled_for_ga")


class RewardForward(torch.nn.Module):
    """The reward model as one module for the Trainer (and DDP/FSDP): collated batch -> head outputs (P, C)."""

    def __init__(self, prm: RewardModel):
        super().__init__()
        self.prm, self.model, self.head = prm, prm.model, prm.target_head

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor, positions: torch.Tensor,
                **_: Any) -> torch.Tensor:
        decoder = self.model.get_decoder()
        embeds = self.model.get_input_embeddings()(input_ids)  # (B, T, H)
        if not any(p.requires_grad for p in decoder.layers[0].parameters()):
            embeds = embeds.detach()  # frozen lower layers: no backward through them (the head rows still train)
        hidden = decoder(inputs_embeds=embeds, attention_mask=attention_mask).last_hidden_state  # (B, T, H)
        return self.prm.head(hidden, positions)  # (P, C)


def prepare_parameters(prm: RewardModel, config: TrainConfig) -> None:
    """LoRA adapters (peft) when `lora_r`, else freeze the embeddings and the lowest `freeze_layers` layers."""
    reserved = sorted({prm.sep_id, *prm.class_ids})  # their rows (= head, when tied) train: added tokens start random
    if config.lora_r:
        from peft import LoraConfig, get_peft_model

        lora = LoraConfig(r=config.lora_r, lora_alpha=config.lora_alpha, lora_dropout=config.lora_dropout,
                          target_modules="all-linear", trainable_token_indices=reserved)
        prm.model = get_peft_model(prm.model, lora)
    elif config.freeze_layers:
        if config.weight_decay:
            raise ValueError("freeze_layers with weight_decay > 0 would decay the frozen embedding rows: set "
                             "weight_decay 0 or use lora_r")
        freeze_embeddings_but(prm.model.get_input_embeddings(), reserved)
        for layer in prm.model.get_decoder().layers[: config.freeze_layers]:
            layer.requires_grad_(False)


def trainable_parameters(prm: RewardModel) -> int:
    """The number of parameters training can change (of a matrix frozen but for some rows, those rows)."""
    return sum(p[: p.trainable_rows].numel() if hasattr(p, "trainable_rows") else p.numel()
               for p in prm.parameters())


def freeze_embeddings_but(embeddings: torch.nn.Embedding, rows: list[int]) -> None:
    """Freeze an embedding matrix except `rows` (the reserved tokens: with tied embeddings, the head) by zeroing the
    other rows' gradient (AdamW with zero weight decay then leaves them unchanged)."""
    mask = torch.zeros(embeddings.weight.shape[0], 1)
    mask[rows] = 1.0
    embeddings.weight.requires_grad_(True)
    embeddings.weight.trainable_rows = len(rows)  # what `trainable_parameters` counts of this matrix
    embeddings.weight.register_hook(lambda grad: grad * mask.to(grad.device, grad.dtype))


@torch.inference_mode()
def held_out_check(module: RewardForward, items: list[Encoded], micro_batch: int,
                   device: torch.device | None = None) -> dict[str, float]:
    """Held-out paper loss (all held-out problems one batch) and accuracy of argmax vs the target's argmax."""
    was_training, head = module.training, module.head
    module.eval()
    correct, groups, losses = 0, [], []
    for i in range(0, len(items), micro_batch):
        part = items[i: i + micro_batch]
        collated = module.prm.collate([(it.ids, it.positions) for it in part])
        logits = module(**{k: v.to(device) if device else v for k, v in collated.items()}).float().cpu()  # (P, C)
        targets = torch.tensor([t for it in part for t in it.targets])
        groups += [it.problem_id for it in part for _ in it.positions]
        losses += head.target_losses(logits, targets).tolist()
        correct += head.hits(logits, targets)
    module.train(was_training)
    loss = float((head.weights(groups) * torch.tensor(losses)).sum()) if losses else float("nan")
    return {"loss": loss, "accuracy": correct / max(1, len(losses)), "targets": len(losses)}


def logged_seconds(checkpoint: str | os.PathLike[str] | None) -> float:
    """The training seconds of the last log line a checkpoint holds (0 for none)."""
    if not checkpoint or not (state := Path(checkpoint, "trainer_state.json")).is_file():
        return 0.0
    seconds = [r["seconds"] for r in json.loads(state.read_text(encoding="utf-8")).get("log_history", [])
               if isinstance(r.get("seconds"), int | float)]
    return float(seconds[-1]) if seconds else 0.0


class RunClock:
    """A Trainer mixin: every log line carries the run's training seconds (`seconds`), a resumed run's counted on."""

    def train(self, resume_from_checkpoint: str | None = None, **kwargs: Any) -> Any:
        self.before, self.started = logged_seconds(resume_from_checkpoint), time.time()
        return super().train(resume_from_checkpoint=resume_from_checkpoint, **kwargs)  # type: ignore[misc]

    def elapsed(self) -> float:
        """Training seconds of the whole run: those before the checkpoint it resumed from, and this process's."""
        return self.before + time.time() - self.started

    def log(self, logs: dict[str, float], *args: Any, **kwargs: Any) -> None:
        super().log({**logs, "seconds": round(self.elapsed(), 1)}, *args, **kwargs)  # type: ignore[misc]


class RewardModelTrainer(RunClock, Trainer):
    """`transformers.Trainer` over a `RewardModel`: problem-grouped batches, the head's loss, prmkit checkpoints."""

    def __init__(self, prm: RewardModel, args: Any, train_items: list[Encoded], held_out: list[Encoded],
                 sampler: PlannedBatchSampler, **kwargs: Any):
        """`sampler`: the batches, problem-grouped (`ProblemBatchSampler`) or of pairs (`PairBatchSampler`)."""
        self.prm, self.held_out, self.sampler = prm, held_out, sampler
        self.tokens, self.started, self.before = 0, time.time(), 0.0
        super().__init__(model=RewardForward(prm), args=args, train_dataset=TraceDataset(train_items),
                         eval_dataset=TraceDataset(held_out) if held_out else None,
                         data_collator=RewardCollator(prm, train_items), **kwargs)
        self.loss_is_scaled_for_ga = True  # each micro-batch returns its share of the step's L

    def get_train_dataloader(self) -> DataLoader:
        loader = DataLoader(self.train_dataset, batch_sampler=self.sampler, collate_fn=self.data_collator)
        return self.accelerator.prepare(loader)

    def compute_loss(self, model: torch.nn.Module, inputs: dict[str, torch.Tensor], return_outputs: bool = False,
                     num_items_in_batch: Any = None) -> Any:
        outputs = model(**inputs)  # (P, C)
        loss = self.prm.target_head.loss(outputs, inputs["targets"], inputs["weights"])
        self.tokens += int(inputs["attention_mask"].sum())
        if TRAINER_DIVIDES_BY_GA and model.training:  # undone by the Trainer's division (TRAINER_DIVIDES_BY_GA)
            loss = loss * getattr(self, "current_gradient_accumulation_steps", self.args.gradient_accumulation_steps)
        return (loss, outputs) if return_outputs else loss

    def evaluate(self, eval_dataset: Any = None, ignore_keys: Any = None,
                 metric_key_prefix: str = "eval") -> dict[str, float]:
        """The held-out check (`held_out_check`), logged as eval_loss / eval_accuracy."""
        check = held_out_check(self.model, self.held_out, self.args.per_device_eval_batch_size, self.args.device)
        metrics = {f"{metric_key_prefix}_{k}": v for k, v in check.items()} | {"tokens": self.tokens}
        self.log(metrics)
        self.control = self.callback_handler.on_evaluate(self.args, self.state, self.control, metrics)
        return metrics

    def _save(self, output_dir: str | None = None, state_dict: dict | None = None) -> None:
        """A checkpoint is a prmkit reward model (+ the trainable parameters of a LoRA run)."""
        if not self.args.should_save:
            return
        out = output_dir or self.args.output_dir
        self.prm.save_pretrained(out)
        if hasattr(self.prm.model, "merge_and_unload"):
            torch.save({n: p.detach().cpu() for n, p in self.model.named_parameters() if p.requires_grad},
                       os.path.join(out, TRAINABLE))

    def _load_from_checkpoint(self, resume_from_checkpoint: str, model: torch.nn.Module | None = None) -> None:
        """Weights of a checkpoint written by `_save` into the model being trained."""
        module = model or self.model
        path = Path(resume_from_checkpoint)
        if (path / TRAINABLE).is_file():
            state = torch.load(path / TRAINABLE, weights_only=True)
            if missing := {n for n, p in module.named_parameters() if p.requires_grad} - set(state):
                raise ValueError(f"{path}: trainable parameters missing from {TRAINABLE}: {sorted(missing)[:3]}")
            module.load_state_dict(state, strict=False)
            return
        saved = RewardModel.from_pretrained(path)
        self.prm.model.load_state_dict(saved.model.state_dict())
        self.prm.target_head.load_state_dict(saved.target_head.state_dict())
