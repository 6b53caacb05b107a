"""argparse, but an unknown flag or command is reported with the closest valid one ("--metod (did you mean
--method?)"), before the required flags it leaves missing."""

import argparse
import difflib
import re
import sys
from collections.abc import Sequence
from typing import NoReturn

__all__ = ["Parser", "suggest_flag"]

_NUMBER = re.compile(r"^-\d+$|^-\d*\.\d+$")  # a negative number is a value, not a flag


def suggest_flag(flag: str, known: Sequence[str]) -> str | None:
    """The known flag closest to `flag` (difflib's ratio at least 0.6), or None."""
    close = difflib.get_close_matches(flag, [k for k in known if k.startswith("--") == flag.startswith("--")], n=1)
    return close[0] if close else None


class Parser(argparse.ArgumentParser):
    """argparse.ArgumentParser whose unknown flags fail at the (sub-)parser that owns them, each with a "did you
    mean", and come before any "the following arguments are required" (their likely cause)."""

    _given: list[str]

    def parse_known_args(self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
                         ) -> tuple[argparse.Namespace, list[str]]:
        self._given = list(sys.argv[1:] if args is None else args)
        if (word := self._unknown_command()) is not None:  # before its flags, which belong to the mistyped command
            self.error(self._unknown_command_text(word))
        if self._commands() and (unknown := self._unknown_flags(self._own_tokens())):  # before the sub-command's
            self.error(self._unknown_text(unknown))  # parser reports what it lacks
        namespace, extras = super().parse_known_args(args, namespace)
        if unknown := self._unknown_flags(extras):
            self.error(self._unknown_text(unknown))
        return namespace, extras

    def error(self, message: str) -> NoReturn:
        if message.startswith("the following arguments are required") and (
                unknown := self._unknown_flags(self._own_tokens())):
            message = f"{self._unknown_text(unknown)}; {message}"
        super().error(message)

    def _own_tokens(self) -> list[str]:
        """The given tokens up to the sub-command (whose flags its own parser checks), those after `--` left out."""
        given = getattr(self, "_given", [])
        given = given[: given.index("--")] if "--" in given else given
        commands = self._commands()
        return next((given[:i] for i, token in enumerate(given) if token in commands), given)

    def _unknown_command(self) -> str | None:
        """The first positional token when this parser takes a command and that token is none of its commands
        (`prmkit lable ...`); None otherwise. A token that is the value of this parser's own flag is no command."""
        commands = self._commands()
        if not commands:
            return None
        tokens = self._given[: self._given.index("--")] if "--" in self._given else self._given
        takes_value = {o for a in self._actions if a.nargs != 0 for o in a.option_strings}
        for k, token in enumerate(tokens):
            if token.startswith("-") or (k and tokens[k - 1] in takes_value):
                continue
            return None if token in commands else token
        return None

    def _unknown_command_text(self, word: str) -> str:
        sub = next(a for a in self._actions if isinstance(a, argparse._SubParsersAction))
        what = "verb" if sub.dest == "verb" else "command"
        close = difflib.get_close_matches(word, list(sub.choices), n=1)
        hint = f"did you mean '{close[0]}'?" if close else f"choose from {', '.join(sub.choices)}"
        return f"unknown {what} '{word}'; {hint}"

    def _commands(self) -> set[str]:
        return {name for a in self._actions if isinstance(a, argparse._SubParsersAction) for name in a.choices}

    def _unknown_flags(self, tokens: Sequence[str]) -> list[str]:
        flags = [token.split("=", 1)[0] for token in tokens]
        return [flag for flag in flags if flag.startswith("-") and flag != "-" and " " not in flag
                and not _NUMBER.match(flag) and not self._is_known(flag)]

    def _is_known(self, flag: str) -> bool:
        known = self._option_string_actions
        return flag in known or (self.allow_abbrev and flag.startswith("--")
                                 and sum(option.startswith(flag) for option in known) == 1)

    def _unknown_text(self, unknown: list[str]) -> str:
        known = list(self._option_string_actions)
        said = [flag + (f" (did you mean {close}?)" if (close := suggest_flag(flag, known)) else "")
                for flag in unknown]
        return f"unrecognized arguments: {', '.join(said)}"  # argparse's words
