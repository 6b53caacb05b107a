"""Where models run when prmkit itself runs them: the GPU when there is one, else the CPU (`PRMKIT_DEVICE`), and
the default weights dtype there."""

import os
import re
from pathlib import Path

from prmkit.data.warn import warn

__all__ = ["cpu_has_bf16", "default_dtype", "inference_device", "warn_slow_dtype"]

_VALID = re.compile(r"^(auto|cpu|cuda(:\d+)?)$")


def inference_device() -> str:
    """The device named by `PRMKIT_DEVICE` (auto, cpu, cuda, cuda:N); ValueError for another, or cuda without a GPU."""
    import torch

    wanted = os.environ.get("PRMKIT_DEVICE", "auto").strip().lower() or "auto"
    if not _VALID.match(wanted):
        raise ValueError(f"PRMKIT_DEVICE={wanted!r}: choose auto, cpu, cuda or cuda:N")
    if wanted == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if wanted.startswith("cuda") and not torch.cuda.is_available():
        raise ValueError(f"PRMKIT_DEVICE={wanted}: torch sees no GPU here (a CPU build of torch, or no driver)")
    return wanted


def default_dtype(device: str) -> str:
    """The weights dtype prmkit samples with when none is given: float32 on a CPU (bf16 emulated), bfloat16 on a GPU."""
    return "bfloat16" if device.startswith("cuda") else "float32"


def cpu_has_bf16(cpuinfo: str | os.PathLike[str] = "/proc/cpuinfo") -> bool | None:
    """Whether this CPU has the avx512_bf16 or amx_bf16 flag; None where the flags cannot be read (not Linux)."""
    try:
        text = Path(cpuinfo).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    flags = {f for line in text.splitlines() if line.startswith("flags") for f in line.split(":", 1)[-1].split()}
    return bool(flags & {"avx512_bf16", "amx_bf16"})


def warn_slow_dtype(dtype: str | None, device: str, cpuinfo: str | os.PathLike[str] = "/proc/cpuinfo") -> None:
    """Warn when bfloat16 weights will run on a CPU without bf16 instructions (measured 4x slower; docs/results.md)."""
    if dtype == "bfloat16" and device == "cpu" and cpu_has_bf16(cpuinfo) is False:
        warn("bfloat16 on this CPU (no avx512_bf16 or amx_bf16 instructions) is emulated: about 4x slower than "
             "float32 here; leave --dtype unset")
