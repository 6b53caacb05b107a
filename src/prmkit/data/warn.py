"""Warnings the user must see: a `PrmkitWarning` attributed to the user's calling line, its message also returned
for the report's "warnings" list."""

import os
import sys
import warnings

__all__ = ["PrmkitWarning", "warn"]


class PrmkitWarning(UserWarning):
    """A result that is computed but needs a caveat to be read correctly."""


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep  # .../prmkit/


def warn(message: str) -> str:
    """Emit `message` as a PrmkitWarning at the first frame outside prmkit (else the outermost: the CLI); return it."""
    frame, level = sys._getframe(0), 1  # stacklevel 1 names this frame
    while frame.f_back is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, PrmkitWarning, stacklevel=level)
    return message
