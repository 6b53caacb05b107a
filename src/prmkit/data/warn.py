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


def warn(message: str) -> str:
    """Emit `message` as a PrmkitWarning attributed to the user's code (module doc; the outermost frame when every
    frame is prmkit's, as under the CLI) and return it for the report."""
    frame, level = sys._getframe(0), 1  # stacklevel 1 names this frame
    while frame.f_back is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, PrmkitWarning, stacklevel=level)
    return message
