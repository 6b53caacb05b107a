"""Where models run when prmkit itself runs them (generation, rollouts and beam search on the transformers backend,
IG/MCNIG labeling, scoring with a reward model): the GPU when there is one, else the CPU.

`PRMKIT_DEVICE` chooses: `auto` (the default: `cuda` when torch sees a GPU, else `cpu`), `cpu`, `cuda` or
`cuda:N`. Training goes through `transformers.Trainer` (and TRL for RL), which places its model itself; the ct2
backend runs on the CPU; vLLM and OpenAI-compatible servers place theirs.

    PRMKIT_DEVICE=cpu prmkit label --method mcnig ...     # keep a GPU free for something else

Random draws do not depend on the device: every sampled row has its own CPU generator (`row_sampling`), so the
same seed draws the same tokens on a CPU and a GPU up to the rounding of the logits.
"""

from __future__ import annotations

import os
import re
from typing import Any

__all__ = ["inference_device", "to_device"]

_VALID = re.compile(r"^(auto|cpu|cuda(:\d+)?)$")


def inference_device() -> str:
    """The device named by `PRMKIT_DEVICE` (module doc); an unknown name, or `cuda` without a GPU, is an error."""
    import torch

    wanted = os.environ.get("PRMKIT_DEVICE", "auto").strip().lower() or "auto"
    if not _VALID.match(wanted):
        raise ValueError(f"PRMKIT_DEVICE={wanted!r}: choose auto, cpu, cuda or cuda:N")
    if wanted == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if wanted.startswith("cuda") and not torch.cuda.is_available():
        raise ValueError(f"PRMKIT_DEVICE={wanted}: torch sees no GPU here (a CPU build of torch, or no driver)")
    return wanted


def to_device(model: Any) -> Any:
    """`model` moved to `inference_device()` (torch's `.to`: a model already there stays as it is)."""
    return model.to(inference_device())
