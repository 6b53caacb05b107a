"""Training PUM's value model (pum_paper sec 3.4, appendix C): `PrefixPair` files -> adjacent rows (p_a, p_b) ->
the `bt` head, on the reward-model Trainer."""

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from prmkit.data.jsonl import read_records
from prmkit.data.records import PrefixPair
from prmkit.data.settings import parse_range
from prmkit.label.pum.pairs import BT_TARGETS
from prmkit.models.reward import RewardModel
from prmkit.train.batches import Encoded, PlannedBatchSampler
from prmkit.train.config import TrainConfig
from prmkit.train.recipe import setup_trainer
from prmkit.train.trainer import RewardModelTrainer, trainable_parameters

__all__ = ["PairBatchSampler", "PairExample", "build_pair_trainer", "encode_pairs", "pair_examples",
           "read_pair_examples"]


@dataclass
class PairExample:
    """One preference pair with its Bradley-Terry target t (eq. 8: 1, 0.5 or 0)."""

    pair_id: str
    problem_id: str
    question: str
    steps_a: list[str]
    steps_b: list[str]
    target: float


def pair_examples(pairs: Iterable[PrefixPair]) -> list[PairExample]:
    """`PrefixPair`s as training pairs, each with its Bradley-Terry target."""
    return [PairExample(f"{p.id_a}|{p.id_b}", p.problem_id, p.question, p.prefix_a, p.prefix_b, BT_TARGETS[p.label])
            for p in pairs]


def read_pair_examples(path: str | os.PathLike[str], problems: str | None = None) -> list[PairExample]:
    """The pairs of a `PrefixPair` JSONL; `problems` ('0:500') keeps problems by their order of first appearance."""
    pairs = list(read_records(path, PrefixPair.from_dict))
    keep = set(list(dict.fromkeys(p.problem_id for p in pairs))[parse_range(problems)])
    return pair_examples(p for p in pairs if p.problem_id in keep)


def encode_pairs(prm: RewardModel, pairs: list[PairExample], max_length: int) -> tuple[list[Encoded], int]:
    """(rows, pairs skipped as too long): rows p_a, p_b of each pair, adjacent, with targets t and 1 - t (PUM eq. 8)."""
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
    """Steps of `batch_pairs` shuffled pairs (rows 2i, 2i + 1), cut into micro-batches of whole pairs."""

    def __init__(self, pairs: int, batch_pairs: int, accumulation: int, seed: int):
        super().__init__(accumulation, seed)
        self.pairs, self.batch_pairs = pairs, max(1, batch_pairs)

    def new_plan(self) -> list[list[int]]:
        order = list(range(self.pairs))
        self.rng.shuffle(order)
        return [order[i: i + self.batch_pairs] for i in range(0, len(order), self.batch_pairs)]

    def rows(self, item: int) -> tuple[int, ...]:
        return 2 * item, 2 * item + 1


def build_pair_trainer(prm: RewardModel, train: list[PairExample], held: list[PairExample], config: TrainConfig,
                       output: str | os.PathLike[str], log: Callable[[str], None] = print) -> RewardModelTrainer:
    """`prmkit.train.recipe.build_trainer` for pairs: encode, prepare the parameters, the pair sampler."""
    if config.micro_batch % 2:
        raise ValueError(f"micro_batch counts rows and a pair is two rows: give an even number, not "
                         f"{config.micro_batch}")

    def sampler(rows: list[Encoded], accumulation: int) -> PairBatchSampler:
        if not rows:
            raise ValueError("no training pair fits max_length")
        return PairBatchSampler(len(rows) // 2, max(1, config.batch_traces // 2), accumulation, config.seed)

    trainer = setup_trainer(prm, train, held, config, output, encode_pairs, sampler)
    rows, steps = trainer.train_dataset.items, trainer.args.max_steps
    log(f"bt: {len(rows) // 2} pairs ({trainer.skipped} skipped as too long), {sum(len(e.ids) for e in rows)} tokens; "
        f"held-out {len(trainer.held_out) // 2} pairs; {trainable_parameters(prm)} trainable parameters; {steps} steps "
        f"of ~{config.batch_traces // 2} pairs ({trainer.sampler.accumulation} micro-batches each)")
    return trainer
