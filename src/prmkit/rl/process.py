"""Per-token process advantages of a batch of completions from a `StepScorer` (PUM appendix D.4): steps, segments,
one scorer value per segment, the credit assignment's advantages, spread over each segment's tokens."""

from dataclasses import dataclass
from typing import Any

from prmkit.domains import split_steps
from prmkit.models.scorer import StepScorer, score_items
from prmkit.rl.advantages import MAX_SEGMENTS, PROCESS_ADVANTAGES, PROCESS_COEF, segment_ends, step_segments
from prmkit.rl.spans import token_ends, token_steps

__all__ = ["ProcessAdvantage", "ProcessBatch"]


@dataclass
class ProcessBatch:
    """Per completion: the segment of each token (-1: no step) and the advantage of each segment."""

    token_segments: list[list[int]]
    segment_advantages: list[list[float]]


@dataclass
class ProcessAdvantage:
    """`name` (a key of PROCESS_ADVANTAGES: pum | prm | min | softmin | progress) computed with `scorer`; `coef`
    weighs it against GRPO's."""

    name: str
    scorer: StepScorer
    coef: float = PROCESS_COEF
    max_segments: int = MAX_SEGMENTS

    def __post_init__(self) -> None:
        if self.name not in PROCESS_ADVANTAGES:
            raise ValueError(f"unknown process advantage '{self.name}'; choose from {', '.join(PROCESS_ADVANTAGES)}")

    def batch(self, tokenizer: Any, ids: list[list[int]], texts: list[str], questions: list[str],
              groups: list[Any]) -> ProcessBatch:
        """`ids`: each completion's tokens (no padding); `texts`: its text cut at the stop strings; `questions`:
        the scorer's question; `groups`: a key per completion, equal within a prompt's group of samples."""
        credit = PROCESS_ADVANTAGES[self.name]
        steps = [split_steps(t) for t in texts]
        segments = [step_segments(len(s), self.max_segments) for s in steps]
        values: list[list[float]] = [[] for _ in texts]
        todo = [i for i, s in enumerate(steps) if s]
        for k, scores in score_items(self.scorer, [(questions[i], steps[i]) for i in todo]):
            i = todo[k]
            ends = segment_ends(segments[i])
            values[i] = [credit.segment([float(s) for s in scores[start:end + 1]])
                         for start, end in zip([0, *(e + 1 for e in ends)], ends, strict=False)]
        advantages: list[list[float]] = [[] for _ in texts]
        for key in dict.fromkeys(groups):
            members = [i for i, g in enumerate(groups) if g == key]
            for i, adv in zip(members, credit([values[i] for i in members]), strict=True):
                advantages[i] = adv
        return ProcessBatch([[segs[s] if s >= 0 else -1 for s in token_steps(token_ends(tokenizer, row), text)]
                             for row, text, segs in zip(ids, texts, segments, strict=True)], advantages)
