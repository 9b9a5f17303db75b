"""Exceptions shared by every part of mcsim.

`CommandError` carries vanilla's English text (from en_us.json) word for word, because RCON
callers parse it.
"""

from __future__ import annotations

__all__ = [
    "BudgetExceeded",
    "CommandError",
    "CommandSyntaxError",
    "UnsupportedCommand",
]


class CommandError(Exception):
    """A command failed the way vanilla fails it (a CommandSyntaxException at run time)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class CommandSyntaxError(CommandError):
    """The command text does not parse against the 1.21 command tree."""


class UnsupportedCommand(CommandError):
    """A valid vanilla command that mcsim does not model: fail loudly, never succeed silently."""

    def __init__(self, identifier: str) -> None:
        super().__init__(f"mcsim does not model this command yet: {identifier}")
        self.identifier = identifier


class BudgetExceeded(Exception):
    """The command budget of one top-level call ran out; the rest of its queue is dropped."""

    def __init__(self, executed: int) -> None:
        super().__init__(f"Command execution stopped due to limit (executed {executed} commands)")
        self.executed = executed
