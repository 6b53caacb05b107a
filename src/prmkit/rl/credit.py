"""Two more ways to turn step scores into step-level advantages for GRPO, beside PUM's (`rl.advantages`): min-form
credit (PURE) and progress (PAV). Pure functions over lists; `rl.advantages.PROCESS_ADVANTAGES` names them.

Both end as one process advantage per segment, added to GRPO's outcome advantage on that segment's tokens,
A(token) = A_GRPO(i) + coef * A_process(i, t) (`rl.advantages.token_advantages`): the outcome reward plays the part
that the verifiable reward plays in PURE and the outcome term Q^pi plays in PAV.

Min-form (Cheng et al., "Stop Summation: Min-Form Credit Assignment Is All Process Reward Model Needs for
Reasoning", NeurIPS 2025, arXiv 2504.15275, sec 3; code github.com/CJReinforce/PURE, branch verl): the return of
a step is the minimum of the step rewards at and after it, not their sum, so no run of well-scored steps can make up
for one bad step ahead. PURE's step reward is p(right) - p(wrong) of its two-class PRM, r = 2s - 1 for a prmkit step
score s in [0, 1]. Its released training default is a soft version: each step reward is weighted by a softmax of
-r / T over the completion's steps (T = 0.1) and the weighted rewards are summed from the step on, so the first
step's return is a soft minimum of all (T -> 0: the minimum). Returns become advantages against a baseline: PURE
(RLOO) subtracts the other samples' token-averaged return and whitens over the batch; here, as GRPO's group is the
unit, the baseline is the group mean of the first step's return (each completion's min-form value), and nothing is
whitened (as D.4 does not normalise the process term).

Progress (Setlur et al., "Rewarding Progress: Scaling Automated Process Verifiers for LLM Reasoning", ICLR 2025,
arXiv 2410.08146, sec 3): a step's process reward is its advantage under a prover policy mu, the change in the chance
of a right answer across the step, A^mu(p_t) = Q^mu(p_t) - Q^mu(p_{t-1}), and the policy is trained on
Q^pi + alpha * A^mu (here A_GRPO + coef * progress). Q(p_t) is the step scorer's score of the prefix's last step:
the exact oracle's (`truth`: 1 while the prefix is error-free, i.e. under a prover that finishes every error-free
prefix, 0 once it holds an error; no later step can raise it), a PRM trained on those labels (its estimate of that
chance), or k rollouts of a prover from the prefix (the Math-Shepherd soft estimate, Q^mu itself). Q(p_0), the
value of the bare question, no step scorer gives; it is the group mean of Q(p_1), the expected Q of the policy's
first step, which as a baseline keeps the first step's progress centred within the group (PAV's V^mu(x) would be
the prover's own first step; the two agree when mu = pi).
"""

from __future__ import annotations

import math

__all__ = ["PURE_TEMPERATURE", "min_form_group", "min_form_returns", "progress_advantages", "progress_group",
           "step_rewards"]

PURE_TEMPERATURE = 0.1  # PURE's released default `credit_assignment: 0.1` (verl branch, ppo_trainer.yaml)


def step_rewards(scores: list[float]) -> list[float]:
    """PURE's step reward p(right) - p(wrong) = 2s - 1 of step scores s in [0, 1]: (0.9, 0.2) -> (0.8, -0.6)."""
    return [2 * s - 1 for s in scores]


def min_form_returns(rewards: list[float], temperature: float = 0.0) -> list[float]:
    """PURE's min-form return of each step from the step rewards r_1..r_n (arXiv 2504.15275, sec 3).

    temperature 0 (strict):  G_t = min_{j >= t} r_j
        r = (0.8, -0.6, 0.4) -> G = (-0.6, -0.6, 0.4)
    temperature T > 0 (PURE's approximation, its released default T = 0.1):
        w = softmax(-r / T) over all n steps,  G_t = sum_{j >= t} w_j r_j
        r = (1, -1), T = 1 -> w = (e^-1, e) / (e^-1 + e) = (0.1192, 0.8808) -> G = (-0.7616, -0.8808)
    G_1 is a soft minimum of all rewards; the later G_t are the weighted rewards still ahead, which differs from the
    strict form after the lowest step (there they tend to 0, not to the minimum of the rest).
    """
    if not rewards:
        return []
    if temperature <= 0:
        out, low = [], math.inf
        for r in reversed(rewards):
            low = min(low, r)
            out.append(low)
        return out[::-1]
    top = max(-r / temperature for r in rewards)  # shift for a stable softmax
    exps = [math.exp(-r / temperature - top) for r in rewards]
    weighted = [e / sum(exps) * r for e, r in zip(exps, rewards, strict=True)]
    return [sum(weighted[t:]) for t in range(len(weighted))]


def min_form_group(group: list[list[float]], temperature: float = 0.0) -> list[list[float]]:
    """Min-form advantages of a prompt's group from each completion's segment scores: A_t = G_t - b, G from
    `min_form_returns(step_rewards(scores), temperature)`, b = the group mean of G_1 (prmkit's GRPO baseline).

    Example, strict: scores (0.9, 0.2, 0.7) and (1.0,) -> G (-0.6, -0.6, 0.4) and (1.0,), b = 0.2
    -> ((-0.8, -0.8, 0.2), (0.8,)); a completion without steps has no segments ([])."""
    returns = [min_form_returns(step_rewards(scores), temperature) for scores in group]
    firsts = [g[0] for g in returns if g]
    baseline = sum(firsts) / len(firsts) if firsts else 0.0
    return [[g - baseline for g in gs] for gs in returns]


def progress_advantages(values: list[float], initial: float) -> list[float]:
    """PAV progress (arXiv 2410.08146, sec 3): A_t = Q(p_t) - Q(p_{t-1}) for the prefix values Q(p_1..p_n), with
    Q(p_0) = `initial`. The oracle's Q = (1, 1, 0, 0) (first error at step 3), Q(p_0) = 0.75 -> (0.25, 0, -1, 0):
    only the step that makes the error is penalised, the steps after it are not."""
    return [q - prev for prev, q in zip([initial, *values], values, strict=False)]


def progress_group(group: list[list[float]]) -> list[list[float]]:
    """Progress of each completion of a prompt's group, Q(p_0) = the group mean of Q(p_1) (module doc).

    Example: Q (1, 1, 0) and (0, 0) -> Q(p_0) = 0.5 -> ((0.5, 0, -1), (-0.5, 0))."""
    firsts = [values[0] for values in group if values]
    initial = sum(firsts) / len(firsts) if firsts else 0.0
    return [progress_advantages(values, initial) for values in group]
