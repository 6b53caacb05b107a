"""Reward specs -> TRL reward functions: terms `[weight*]name[:model]` joined by `+`, `name` a key of `REWARDS`,
`model` a step scorer's checkpoint (`outcome+0.5*pspo_wrs:runs/prm`)."""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from prmkit.models.scorer import StepScorer
from prmkit.models.scorer_spec import load_scorer_spec
from prmkit.rewards.functions import FORMULAS, OutcomeReward, StepScoreReward

__all__ = ["REWARDS", "RewardTerm", "Scorers", "build_rewards", "parse_reward_spec", "parse_term"]


class Scorers(dict[str, StepScorer]):
    """Step scorers by model path, each loaded on first use (`models.load_scorer_spec`: a reward-model checkpoint,
    or a spec KIND:PATH,KEY=VALUE); put a ready scorer under any key to use it without loading (tests, a judge)."""

    def __missing__(self, path: str) -> StepScorer:
        self[path] = scorer = load_scorer_spec(path)
        return scorer


def _outcome(model: str | None, scorers: Scorers) -> Callable[..., list[float | None]]:
    if model is not None:
        raise ValueError(f"reward 'outcome' takes no model, got ':{model}'")
    return OutcomeReward()


def _scored(name: str) -> Callable[[str | None, Scorers], Callable[..., list[float | None]]]:
    def factory(model: str | None, scorers: Scorers) -> Callable[..., list[float | None]]:
        if not model:
            raise ValueError(f"reward '{name}' needs a model: '{name}:PATH'")
        return StepScoreReward(name, scorers[model], FORMULAS[name])

    return factory


REWARDS: dict[str, Callable[[str | None, Scorers], Callable[..., list[float | None]]]] = {
    "outcome": _outcome,  # the problem's validator on the final answer (rule-based GRPO reward)
    **{name: _scored(name) for name in FORMULAS},  # prm_prod | prm_min | prm_geomean | pspo_wrs | pum
}


@dataclass(frozen=True)
class RewardTerm:
    name: str
    model: str | None = None
    weight: float = 1.0


def parse_term(text: str, known: dict[str, Any] | None = None) -> RewardTerm:
    """`[weight*]name[:model]` -> RewardTerm; `name` must be in `known` (default: `REWARDS`)."""
    known = REWARDS if known is None else known
    head, star, tail = text.strip().partition("*")
    weight, rest = (head, tail) if star else ("1", head)
    name, _, model = rest.strip().partition(":")
    if name not in known:
        raise ValueError(f"unknown name '{name}' in '{text}'; choose from {', '.join(known)}")
    try:
        value = float(weight)
    except ValueError:
        raise ValueError(f"weight '{weight}' in '{text}' is not a number") from None
    return RewardTerm(name, model.strip() or None, value)


def parse_reward_spec(spec: str) -> list[RewardTerm]:
    """The terms of a spec `term+term+...`; an empty spec is an error."""
    terms = [parse_term(t) for t in spec.split("+") if t.strip()]
    if not terms:
        raise ValueError("empty reward spec; e.g. 'outcome' or 'outcome+pspo_wrs:runs/prm'")
    return terms


def build_rewards(spec: str, scorers: Scorers | None = None) -> tuple[list[Callable[..., Any]], list[float]]:
    """(reward functions, weights) for `GRPOTrainer(reward_funcs=..., args=GRPOConfig(reward_weights=...))`."""
    scorers = Scorers() if scorers is None else scorers
    terms = parse_reward_spec(spec)
    return [REWARDS[t.name](t.model, scorers) for t in terms], [t.weight for t in terms]
