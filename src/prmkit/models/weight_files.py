"""Weight files checked before a model loads: a `.safetensors` file cut short is a one-line error naming it."""

import json
import os
import struct
from pathlib import Path

__all__ = ["check_weight_files", "safetensors_size"]

_MAX_HEADER = 100_000_000  # safetensors' own limit on the JSON header


def safetensors_size(path: str | os.PathLike[str]) -> int:
    """8 + N + max(data end): the size the safetensors header (length N) of `path` describes; ValueError when the
    header is cut short or not a safetensors header."""
    with open(path, "rb") as fh:
        head = fh.read(8)
        if len(head) < 8:
            raise ValueError(f"{len(head)} bytes, shorter than a safetensors header")
        (length,) = struct.unpack("<Q", head)
        if length > _MAX_HEADER:
            raise ValueError(f"a header length of {length} bytes is not a safetensors header")
        text = fh.read(length)
    if len(text) < length:
        raise ValueError(f"the header needs {8 + length} bytes")
    try:
        header = json.loads(text)
        ends = [int(v["data_offsets"][1]) for k, v in header.items() if k != "__metadata__"]
    except (ValueError, TypeError, KeyError, IndexError, AttributeError):
        raise ValueError("its header is not valid safetensors JSON") from None
    return 8 + length + max(ends, default=0)


def check_weight_files(folder: str | os.PathLike[str]) -> None:
    """Raise ValueError naming the first `*.safetensors` file of `folder` whose size is not what its header says."""
    for path in sorted(Path(folder).glob("*.safetensors")):
        size = path.stat().st_size
        try:
            expected = safetensors_size(path)
        except ValueError as e:
            raise ValueError(f"{path}: truncated or damaged weights ({size} bytes: {e}); copy or save the model "
                             "again") from None
        if size != expected:
            raise ValueError(f"{path}: truncated or damaged weights ({size} bytes, its header describes {expected}); "
                             "copy or save the model again")
