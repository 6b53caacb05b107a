"""Warnings the user must see: a figure that is computed but means less than it seems (a class missing from a
balanced accuracy, a K larger than some pools, an undefined rank percentile).

`warn(message)` raises a `PrmkitWarning` through Python's `warnings` (so an API user sees it, or can turn it into
an error with `warnings.simplefilter("error", PrmkitWarning)`) and returns the message, so that the caller also
puts it into its report (`"warnings": [...]` in the JSON). The CLI prints each one on stderr as
`prmkit <verb>: warning: <message>`.

The warning is attributed to the first frame outside the prmkit package (the user's line that called the API),
however deep inside prmkit it was raised, so that `file.py:12: PrmkitWarning: ...` points at the user's code.
"""

from __future__ import annotations

import os
import sys
import warnings

__all__ = ["PrmkitWarning", "warn"]


class PrmkitWarning(UserWarning):
    """A result that is computed but needs a caveat to be read correctly."""


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep  # .../prmkit/


def caller_stacklevel() -> int:
    """The `stacklevel` for `warnings.warn` called from this function's caller that names the first frame outside
    the prmkit package (1 = that caller itself; the outermost frame if every frame is prmkit's, as under the CLI)."""
    frame, level = sys._getframe(1), 1
    while frame.f_back is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level


def warn(message: str) -> str:
    """Emit `message` as a PrmkitWarning attributed to the user's code (the first frame outside prmkit) and return
    it for the report."""
    warnings.warn(message, PrmkitWarning, stacklevel=caller_stacklevel())
    return message
