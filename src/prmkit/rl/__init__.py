"""RL with process rewards on TRL's GRPO: step-level advantages (PUM sec 4.4, appendix D.4; PURE; PAV) and `prmkit rl
grpo` (`rl.run`; `rl.trainer` imports trl)."""

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
