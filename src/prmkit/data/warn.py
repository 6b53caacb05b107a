"""Warnings the user must see: a figure that is computed but means less than it seems (a class missing from a
balanced accuracy, a K larger than some pools, an undefined rank percentile).

`warn(message)` raises a `PrmkitWarning` through Python's `warnings` (so an API user sees it, or can turn it into
an error with `warnings.simplefilter("error", PrmkitWarning)`) and returns the message, so that the caller also
puts it into its report (`"warnings": [...]` in the JSON). The CLI prints each one on stderr as
`prmkit <verb>: warning: <message>`.
"""

from __future__ import annotations

import warnings

__all__ = ["PrmkitWarning", "warn"]


class PrmkitWarning(UserWarning):
    """A result that is computed but needs a caveat to be read correctly."""


def warn(message: str) -> str:
    """Emit `message` as a PrmkitWarning (to the caller's caller) and return it for the report."""
    warnings.warn(message, PrmkitWarning, stacklevel=3)
    return message
