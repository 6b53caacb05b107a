"""RL with process rewards on TRL's GRPO: step-level advantages (PUM sec 4.4, appendix D.4) and `prmkit rl grpo`.

- `advantages`: the formulas (GRPO group advantage, PUM nested prefix-utility differences, the PRM variant,
  segments, per-token sum), pure functions with worked examples, and `PROCESS_ADVANTAGES`, every credit assignment;
- `credit`: min-form credit (PURE) and progress (PAV), pure functions with worked examples;
- `rollout_values`: a prefix's value from k rollouts of a prover policy (PAV's Q, Math-Shepherd's estimate);
- `spans`: which step each completion token belongs to;
- `process`: a `StepScorer` -> per-token process advantages of a batch;
- `trainer`: `ProcessGRPOTrainer`, TRL's GRPOTrainer with (B, T) advantages (imports trl: import it from there);
- `config` / `run`: `RLConfig` and `run_grpo` (`prmkit.rl.run`: it loads transformers), the verb's wiring.

TRL 1.16 has no PPO trainer (PSPO's own setting is PPO with a PRM), so PSPO-WRS runs as a GRPO reward.
"""

from prmkit.rl.advantages import (
    MAX_SEGMENTS,
    PROCESS_ADVANTAGES,
    PROCESS_COEF,
    Credit,
    describe_credit,
    group_advantages,
    prefix_utility_advantages,
    prm_step_advantages,
    segment_ends,
    step_segments,
    token_advantages,
)
from prmkit.rl.config import RLConfig
from prmkit.rl.credit import min_form_returns, progress_advantages
from prmkit.rl.process import ProcessAdvantage, ProcessBatch
from prmkit.rl.spans import piece_steps, token_ends, token_steps

__all__ = ["MAX_SEGMENTS", "PROCESS_ADVANTAGES", "PROCESS_COEF", "Credit", "ProcessAdvantage", "ProcessBatch",
           "RLConfig", "describe_credit", "group_advantages", "min_form_returns", "piece_steps",
           "prefix_utility_advantages", "prm_step_advantages", "progress_advantages", "segment_ends", "step_segments",
           "token_advantages", "token_ends", "token_steps"]
