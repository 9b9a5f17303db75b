"""Every error a bot user may see.

`str(error)` is one clear sentence meant for a person (a Discord reply, a console line). No
error text ever contains a secret: the RCON password and the Discord token are never formatted
into a message, and callers must keep it that way.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from bot.i18n import Lazy, Text, lazy

__all__ = [
    "BadPassword",
    "BotError",
    "CommandDropped",
    "CommandParseError",
    "CommandRefused",
    "CommandTooLong",
    "ConfigError",
    "DiscordUnavailable",
    "ImportFailed",
    "NotAllowed",
    "NotFound",
    "PackError",
    "RconTimeout",
    "ServerUnavailable",
    "ValidationError",
    "may_have_run",
    "naming",
]


class BotError(Exception):
    """Base of every error the bot turns into a user-facing message."""

    @property
    def text(self) -> Text:
        """The message as given (a lazy one stays lazy: said later in its reader's locale)."""
        first = self.args[0] if len(self.args) == 1 else None
        return first if isinstance(first, str | Lazy) else str(self)


class ConfigError(BotError):
    """A setting is missing or invalid; the text names the environment variable."""


class NotAllowed(BotError):
    """The caller's rank does not allow the operation; nothing was done."""


class ServerUnavailable(BotError):
    """The Minecraft server cannot be reached over RCON, or the connection dropped."""


class CommandDropped(ServerUnavailable):
    """The connection dropped after the command was sent: it may or may not have run."""


class DiscordUnavailable(BotError):
    """Discord did not answer a question the bot asked it (a member's roles, a name)."""


class BadPassword(BotError):
    """The server refused the RCON password."""


class CommandTooLong(BotError):
    """The command is over RCON's request cap and was not sent."""

    def __init__(self, size: int, limit: int) -> None:
        super().__init__(
            lazy(
                "The command is {size} bytes of UTF-8, but RCON accepts at most {limit}; "
                "it was not sent.",
                size=size,
                limit=limit,
            )
        )
        self.size = size
        self.limit = limit


class RconTimeout(BotError):
    """No whole reply arrived in time; the connection was dropped so no late reply leaks."""


def may_have_run(error: BaseException) -> bool:
    """Did the command reach the server before this error (its reply lost, not its request)?"""
    return isinstance(error, CommandDropped | RconTimeout)


class ValidationError(BotError):
    """Bad input, refused before any round trip to the server; `field` names the input at
    fault when one is (the API answers it)."""

    def __init__(self, *args: object, field: str | None = None) -> None:
        super().__init__(*args)
        self.field = field


class NotFound(ValidationError):
    """What the request names does not exist (a planned row's number, ...)."""


class CommandRefused(ValidationError):
    """The command is not allowed (deny-list, permission level, function namespace)."""

    def __init__(self, reason: Text) -> None:
        super().__init__(reason)
        self._reason = reason

    @property
    def reason(self) -> str:
        """The reason in the reader's language (it may be a lazy text, see bot.i18n)."""
        return str(self._reason)


class CommandParseError(ValidationError):
    """The command does not parse as vanilla Minecraft would parse it."""

    def __init__(self, command: str, column: int, message: Text) -> None:
        super().__init__(
            lazy(
                "{message} at column {column}: {command}",
                message=message,
                column=column,
                command=command,
            )
        )
        self.command = command
        self.column = column  # 1-based
        self._message = message

    @property
    def message(self) -> str:
        """What is wrong, in the reader's language (it may be a lazy text, see bot.i18n)."""
        return str(self._message)

    def caret(self) -> str:
        """The command with a caret under the failing column, for a code block."""
        return f"{self.command}\n{' ' * max(self.column - 1, 0)}^"


class PackError(BotError):
    """The data pack answered with an error."""

    def __init__(self, code: str, message: Text) -> None:
        super().__init__(message)
        self.code = code
        self._message = message

    @property
    def message(self) -> str:
        return str(self._message)


@contextmanager
def naming(field: str) -> Iterator[None]:
    """A ValidationError raised inside names `field` as the input at fault (unless it names
    one already): checks shared by several inputs stay unaware of what they check."""
    try:
        yield
    except ValidationError as exc:
        if exc.field is None:
            exc.field = field
        raise


class ImportFailed(BotError):
    """A plan file's import failed part-way (the server went down, Discord refused): what it had
    written was undone; the text names the entry that failed and anything left over."""
