"""A trivial labeler for the recipe's tests: a step's score is its length. One class plus one registry line.

`delay` slows each problem down (for the kill -9 test); it changes no score, so it is not in `params`.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Mapping, Set
from dataclasses import dataclass, field
from typing import Any, ClassVar

from prmkit.data.records import Pool, StepLabels
from prmkit.label import LABELERS, LabelCost, Labeled, LabelerBase

UNITS = {"chars": len, "words": lambda text: len(text.split())}


@dataclass
class StepLengthConfig:
    unit: str = field(default="chars", metadata={"help": "step length in: chars | words"})
    delay: float = field(default=0.0, metadata={"help": "seconds to sleep per problem"})


class StepLength(LabelerBase):
    config_class: ClassVar[type] = StepLengthConfig

    def __init__(self, config: StepLengthConfig, methods: tuple[str, ...]):
        self.config, self.methods = config, methods

    def params(self, method: str) -> dict[str, Any]:
        return {"method": method, "unit": self.config.unit}

    def skip_reason(self, pool: Pool, method: str) -> str | None:
        return None if pool.traces else "no traces"

    def unreadable(self, pool: Pool, ids: Set[str]) -> dict[str, str]:
        return {}

    def label_stream(self, items: Iterable[tuple[Pool, Mapping[str, Set[str]]]]) -> Iterator[Labeled]:
        for pool, todo in items:
            time.sleep(self.config.delay)
            measure, records = UNITS[self.config.unit], {}
            for m, ids in todo.items():
                records[m] = [StepLabels(t.id, m, [float(measure(s)) for s in t.steps], params=self.params(m),
                                         correct=t.correct, problem_id=pool.problem.id)
                              for t in pool.traces if t.id in ids]
            read = sum(len(s) for t in pool.traces for s in t.steps)
            yield Labeled(records, LabelCost(tokens_read=read, paper_tokens={m: read for m in todo}))


LABELERS["length"] = StepLength
