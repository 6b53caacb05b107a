"""Two-level credit assignment for GRPO (PUM paper, sec 4.4 and appendix D.4), as pure functions over lists: GRPO's
outcome advantage plus a per-segment process advantage; `PROCESS_ADVANTAGES` names every credit assignment."""

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from operator import itemgetter

from prmkit.rl.credit import PURE_TEMPERATURE, min_form_group, progress_advantages, progress_group

__all__ = ["MAX_SEGMENTS", "PROCESS_ADVANTAGES", "PROCESS_COEF", "Credit", "describe_credit", "group_advantages",
           "prefix_utility_advantages", "prm_step_advantages", "segment_ends", "step_segments", "token_advantages"]

PROCESS_COEF = 0.5  # D.4: A = A_GRPO + 0.5 A_eval
MAX_SEGMENTS = 8  # D.4: each response is split into at most 8 reasoning segments


def group_advantages(rewards: list[float], group_size: int, eps: float = 1e-4) -> list[float]:
    """GRPO's advantage within each group of `group_size` consecutive rewards (Shao et al., 2024; TRL's formula):
    A = (r - mean) / (std + 1e-4), std with Bessel's correction. (1, 0, 0, 0) -> (1.4997, -0.4999, -0.4999, -0.4999)."""
    if group_size < 1 or len(rewards) % group_size:
        raise ValueError(f"{len(rewards)} rewards do not split into groups of {group_size}")
    out = []
    for g in range(0, len(rewards), group_size):
        group = rewards[g : g + group_size]
        mean = sum(group) / len(group)
        std = math.sqrt(sum((r - mean) ** 2 for r in group) / (len(group) - 1)) if len(group) > 1 else 0.0
        out += [(r - mean) / (std + eps) for r in group]
    return out


def step_segments(n_steps: int, max_segments: int = MAX_SEGMENTS) -> list[int]:
    """The segment of each step: one segment a step up to `max_segments`, else near-equal runs of steps
    (step i -> floor(i * S / n)). Example: 10 steps, S = 8 -> [0, 0, 1, 2, 3, 4, 4, 5, 6, 7]."""
    if n_steps <= max_segments:
        return list(range(n_steps))
    return [i * max_segments // n_steps for i in range(n_steps)]


def segment_ends(segments: list[int]) -> list[int]:
    """The index of the last step of each segment: [0, 0, 1, 2, 2] -> [1, 2, 4]."""
    return [i for i, s in enumerate(segments) if i + 1 == len(segments) or segments[i + 1] != s]


# PUM D.4: A_t = U(p_t) - U(p_{t-1}) for prefix utilities U(p_1..p_n), U(p_0) given; PAV's progress with Q = U.
# U = (0.2, 0.5, 0.4), U(p_0) = 0.3 -> (-0.1, 0.3, -0.1).
prefix_utility_advantages = progress_advantages


def prm_step_advantages(scores: list[float], shift: float = 0.5) -> list[float]:
    """PRM variant of PUM D.4: A_t = s_t - 0.5. (0.9, 0.4) -> (0.4, -0.1)."""
    return [s - shift for s in scores]


@dataclass(frozen=True)
class Credit:
    """A credit assignment: `group` maps the segment values of each completion of one prompt's group to per-segment
    advantages (calling it calls `group`); `segment` is a segment's value from its steps' scores; `summary` its help."""

    group: Callable[[list[list[float]]], list[list[float]]]
    summary: str
    segment: Callable[[list[float]], float] = itemgetter(-1)  # the last step's score

    def __call__(self, group: list[list[float]]) -> list[list[float]]:
        return self.group(group)


# name -> credit assignment; `prmkit rl grpo --process NAME:SCORER` (its help lists these)
PROCESS_ADVANTAGES: dict[str, Credit] = {
    "pum": Credit(progress_group, "U(p_t) - U(p_t-1), nested prefix-utility differences, U(p_0) = group mean of U(p_1) "
                  "(PUM D.4)"),
    "prm": Credit(lambda group: [prm_step_advantages(values) for values in group],
                  "step score - 0.5 (PUM D.4, PRM variant)"),
    "min": Credit(min_form_group, "min over the steps at and after t of 2s-1, minus the group mean of the first "
                  "step's (PURE, strict min-form)", min),
    "softmin": Credit(partial(min_form_group, temperature=PURE_TEMPERATURE),
                      "PURE's soft min-form: 2s-1 weighted by softmax(-r/0.1), summed from t on, minus the group "
                      "mean of the first step's (PURE's released default)", min),
    "progress": Credit(progress_group, "Q(p_t) - Q(p_t-1), Q = the scorer's value of the prefix (truth, rollouts "
                       "or a PRM), Q(p_0) = group mean of Q(p_1) (PAV progress)"),
}


def describe_credit() -> str:
    """The help text of every credit assignment: 'name: summary; ...' (what `--process` lists)."""
    return "; ".join(f"{name}: {credit.summary}" for name, credit in PROCESS_ADVANTAGES.items())


def token_advantages(grpo: list[float], token_segments: list[list[int]], process: list[list[float]],
                     coef: float = PROCESS_COEF) -> list[list[float]]:
    """PUM D.4: A(token) = A_GRPO(i) + coef * A_process(i, segment of the token); segment -1 (padding, no steps):
    A_GRPO(i) alone. grpo (1.5, -0.5), token segments ([0, 0, 1], [0, -1]), process ([0.4, -0.1], [0.2])
    -> [[1.7, 1.7, 1.45], [-0.4, -0.5]]."""
    return [[a + (coef * adv[s] if s >= 0 else 0.0) for s in segs]
            for a, segs, adv in zip(grpo, token_segments, process, strict=True)]
