"""Training PUM (pum_paper.txt sec 3.4, appendix C): `PrefixPair` files -> pairs of encoded prefixes -> the `bt` head.

Each pair becomes two rows, p_a then p_b, always adjacent in a micro-batch (`PairBatchSampler`), so the head's
loss sees Delta = U(x, p_a) - U(x, p_b) (`prmkit.models.heads.BradleyTerryHead`). An optimiser step holds about
`batch_traces` rows (batch_traces / 2 pairs), cut into the Trainer's `gradient_accumulation_steps` micro-batches
of whole pairs; every row carries 1 / (rows of the step), so the micro-batch losses add up to the step's mean pair
loss (eq. 9), as for the other heads. The rest (LoRA or frozen layers, checkpoints, resume, held-out check) is the
reward-model Trainer's (`prmkit.train.trainer`).

    pairs = read_pair_examples("runs/pum/pairs.jsonl")
    train_reward_model(pairs, RewardModelConfig(kind="bt", aggregation="last"), TrainConfig(), "runs/pum_model",
                       held_out_problems=2, build=build_pair_trainer)
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import torch

from prmkit.data.jsonl import read_records
from prmkit.data.records import PrefixPair
from prmkit.label.pum.pairs import BT_TARGETS
from prmkit.models.reward import RewardModel
from prmkit.train.arguments import accumulation_steps, training_arguments
from prmkit.train.batches import Encoded, PlannedBatchSampler
from prmkit.train.config import TrainConfig
from prmkit.train.data import parse_range
from prmkit.train.trainer import RewardModelTrainer, prepare_parameters, trainable_parameters

__all__ = ["PairBatchSampler", "PairExample", "build_pair_trainer", "encode_pairs", "read_pair_examples"]


@dataclass
class PairExample:
    """One preference pair with its Bradley-Terry target t (eq. 8: 1, 0.5 or 0)."""

    pair_id: str
    problem_id: str
    question: str
    steps_a: list[str]
    steps_b: list[str]
    target: float


def read_pair_examples(path: str | os.PathLike[str], problems: str | None = None) -> list[PairExample]:
    """The pairs of a `PrefixPair` JSONL; `problems` ('0:500') keeps the problems by index in order of first
    appearance in the file."""
    pairs = list(read_records(path, PrefixPair.from_dict))
    order = list(dict.fromkeys(p.problem_id for p in pairs))
    keep = set(order[parse_range(problems)])
    return [PairExample(f"{p.id_a}|{p.id_b}", p.problem_id, p.question, p.prefix_a, p.prefix_b, BT_TARGETS[p.label])
            for p in pairs if p.problem_id in keep]


def encode_pairs(prm: RewardModel, pairs: list[PairExample], max_length: int) -> tuple[list[Encoded], int]:
    """Rows (p_a, p_b) of each pair, adjacent, with targets (t) and (1 - t); a pair with a prefix the head does
    not keep within `max_length` is skipped. Returns (rows, pairs skipped)."""
    out, skipped, head = [], 0, prm.target_head
    for pair in pairs:
        rows = []
        for steps, t in ((pair.steps_a, pair.target), (pair.steps_b, 1.0 - pair.target)):
            ids, positions = prm.encode(pair.question, steps)
            keep = head.keep(positions, max_length)
            if keep is None:
                break
            rows.append(Encoded(ids[:max_length], [positions[k] for k in keep], head.targets([t]), pair.problem_id))
        if len(rows) == 2:
            out += rows
        else:
            skipped += 1
    return out, skipped


class PairBatchSampler(PlannedBatchSampler):
    """Micro-batches of row `Key`s (`prmkit.train.batches`) for rows that come in pairs (2i, 2i + 1): each epoch
    shuffles the pairs (the e-th draw of one `Random(seed)`, so a resumed run sees the same order), steps of
    `batch_pairs` pairs, each cut into `accumulation` micro-batches of whole pairs."""

    def __init__(self, pairs: int, batch_pairs: int, accumulation: int, seed: int):
        super().__init__(accumulation, seed)
        self.pairs, self.batch_pairs = pairs, max(1, batch_pairs)

    def new_plan(self) -> list[list[int]]:
        """Pair indices, shuffled."""
        order = list(range(self.pairs))
        self.rng.shuffle(order)
        return [order[i: i + self.batch_pairs] for i in range(0, len(order), self.batch_pairs)]

    def __iter__(self) -> Iterator[list[tuple[int, tuple[int, ...]]]]:
        for step in self.plan(self.epoch):
            members = tuple(r for p in step for r in (2 * p, 2 * p + 1))
            for g in range(self.accumulation):
                part = step[g * len(step) // self.accumulation: (g + 1) * len(step) // self.accumulation]
                rows = [r for p in part for r in (2 * p, 2 * p + 1)]
                yield [(r, members) for r in rows] or [(2 * step[0], ()), (2 * step[0] + 1, ())]


def build_pair_trainer(prm: RewardModel, train: list[PairExample], held: list[PairExample], config: TrainConfig,
                       output: str | os.PathLike[str], log: Callable[[str], None] = print) -> RewardModelTrainer:
    """`prmkit.train.recipe.build_trainer` for pairs: encode, prepare the parameters, the pair sampler."""
    from transformers.trainer_callback import ProgressCallback

    from prmkit.train.progress import LossProgress

    if config.micro_batch % 2:
        raise ValueError(f"micro_batch counts rows and a pair is two rows: give an even number, not "
                         f"{config.micro_batch}")
    if config.threads:
        torch.set_num_threads(config.threads)
    torch.manual_seed(config.seed)
    prepare_parameters(prm, config)
    enc_train, skipped = encode_pairs(prm, train, config.max_length)
    enc_held, _ = encode_pairs(prm, held, config.max_length)
    if not enc_train:
        raise ValueError("no training pair fits max_length")
    accumulation = accumulation_steps(config)
    sampler = PairBatchSampler(len(enc_train) // 2, max(1, config.batch_traces // 2), accumulation, config.seed)
    steps = config.max_steps or sampler.total_steps(config.epochs)
    args = training_arguments(config, output, steps, accumulation, evaluate=bool(enc_held))
    trainer = RewardModelTrainer(prm, args, enc_train, enc_held, config.batch_traces, config.seed, sampler=sampler)
    trainer.remove_callback(ProgressCallback)
    trainer.add_callback(LossProgress())
    trainer.skipped = skipped
    log(f"bt: {len(enc_train) // 2} pairs ({skipped} skipped as too long), {sum(len(e.ids) for e in enc_train)} "
        f"tokens; held-out {len(enc_held) // 2} pairs; {trainable_parameters(prm)} trainable "
        f"parameters; {args.max_steps} steps of ~{config.batch_traces // 2} pairs ({accumulation} micro-batches each)")
    return trainer
