"""Problem-grouped batches for `transformers.Trainer`: each optimiser step cut into `accumulation` micro-batches
whose targets carry their weight in the whole step, so the micro-batch losses sum to MCNIG sec 3.3's L exactly."""

import math
import random
from collections.abc import Iterator
from dataclasses import dataclass

import torch

from prmkit.models.reward import RewardModel
from prmkit.train.data import Example

__all__ = ["Encoded", "PlannedBatchSampler", "ProblemBatchSampler", "RewardCollator", "TraceDataset", "encode_examples"]

Key = tuple[int, tuple[int, ...]]  # (trace index, the trace indices of its optimiser step; () = zero weight)


@dataclass
class Encoded:
    ids: list[int]
    positions: list[int]
    targets: list[list[float]]
    problem_id: str


def encode_examples(prm: RewardModel, examples: list[Example], max_length: int) -> tuple[list[Encoded], int]:
    """(encoded, number skipped as too long): tokenised, the head's truncation policy cutting traces past max_length."""
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


class PlannedBatchSampler:
    """A batch sampler whose epoch e is the e-th draw (`new_plan`) of one `Random(seed)`: a resume keeps the order."""

    def __init__(self, accumulation: int, seed: int):
        self.accumulation = accumulation
        self.rng, self.plans, self.epoch = random.Random(seed), [], 0

    def new_plan(self) -> list[list[int]]:
        """One epoch's optimiser steps (item indices), drawn with `self.rng`."""
        raise NotImplementedError

    def set_epoch(self, epoch: int) -> None:
        self.epoch = epoch

    def plan(self, epoch: int) -> list[list[int]]:
        """The optimiser steps of `epoch`."""
        while len(self.plans) <= epoch:
            self.plans.append(self.new_plan())
        return self.plans[epoch]

    def total_steps(self, epochs: float) -> int:
        """Optimiser steps of `epochs` epochs, a last part-epoch cut to its fraction (epochs=1.5 trains half of
        the second epoch's plan)."""
        full = math.ceil(epochs)
        return max(1, sum(math.ceil(len(self.plan(e)) * min(1.0, epochs - e)) for e in range(full)))

    def __len__(self) -> int:
        return len(self.plan(self.epoch)) * self.accumulation

    def rows(self, item: int) -> tuple[int, ...]:
        """The dataset rows of one item of a plan (here the item itself)."""
        return (item,)

    def __iter__(self) -> Iterator[list[Key]]:
        """Each step's `accumulation` micro-batches of whole items, every row keyed with the rows of its step; an
        empty micro-batch holds the step's first item at zero weight."""
        for step in self.plan(self.epoch):
            members = tuple(r for i in step for r in self.rows(i))
            for g in range(self.accumulation):
                part = step[g * len(step) // self.accumulation: (g + 1) * len(step) // self.accumulation]
                yield [(r, members) for i in part for r in self.rows(i)] or [(r, ()) for r in self.rows(step[0])]


class ProblemBatchSampler(PlannedBatchSampler):
    """Steps of whole problems (about `batch_traces` traces each), shortest traces first."""

    def __init__(self, problems: list[str], lengths: list[int], batch_traces: int, accumulation: int, seed: int):
        super().__init__(accumulation, seed)
        self.problems, self.lengths, self.batch_traces = problems, lengths, batch_traces

    def new_plan(self) -> list[list[int]]:
        by_problem: dict[str, list[int]] = {}
        for i, problem in enumerate(self.problems):
            by_problem.setdefault(problem, []).append(i)
        groups = list(by_problem.values())
        self.rng.shuffle(groups)
        steps, current = [], []
        for group in groups:
            current += group
            if len(current) >= self.batch_traces:
                steps.append(current)
                current = []
        return [sorted(s, key=self.lengths.__getitem__) for s in steps + ([current] if current else [])]


class TraceDataset(torch.utils.data.Dataset):
    """Map-style dataset whose keys are the sampler's `Key`s (the collator looks the traces up)."""

    def __init__(self, items: list[Encoded]):
        self.items = items

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, key: Key) -> Key:
        return key


class RewardCollator:
    """Keys -> the model inputs plus `targets` (P, C) and `weights` (P,): each target's share of its step's loss."""

    def __init__(self, prm: RewardModel, items: list[Encoded]):
        self.prm, self.items = prm, items
        self._weights: dict[tuple[int, ...], dict[int, torch.Tensor]] = {}

    def step_weights(self, members: tuple[int, ...]) -> dict[int, torch.Tensor]:
        """Trace index -> its targets' weights, the head's weights over all targets of the step."""
        if members not in self._weights:
            groups = [self.items[i].problem_id for i in members for _ in self.items[i].positions]
            sizes = [len(self.items[i].positions) for i in members]
            out = dict(zip(members, self.prm.target_head.weights(groups).split(sizes), strict=True))
            self._weights = {members: out}  # one step at a time: its micro-batches come in a row
        return self._weights[members]

    def __call__(self, keys: list[Key]) -> dict[str, torch.Tensor]:
        parts = [self.items[i] for i, _ in keys]
        batch = self.prm.collate([(it.ids, it.positions) for it in parts])
        batch["targets"] = torch.tensor([t for it in parts for t in it.targets])  # (P, C)
        batch["weights"] = torch.cat([self.step_weights(m)[i] if m else torch.zeros(len(self.items[i].positions))
                                      for i, m in keys])  # (P,)
        return batch
