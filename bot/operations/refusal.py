"""An error as the sentence a person reads, on every face: a refused command with its reason, a
command that does not parse with a caret under the place, the pack's refusal, a request the
operation refused naming the option. Anything else is a bug: :func:`unexpected` logs it with a
short id and says only the id (never a traceback), so an admin can find the log entry."""

from __future__ import annotations

__all__ = ["MAX_MESSAGE", "caret_window", "said", "unexpected"]

import logging
import secrets

import pydantic

from bot import errors
from bot.i18n import _, refusals

log = logging.getLogger(__name__)

MAX_MESSAGE = 2000  # the longest sentence a face shows at once (Discord's message content)
MARK = "…"


def caret_window(command: str, column: int, width: int) -> str:
    """The command with a caret under `column` (1-based), cut to `width` characters around the
    column when it is longer, so a 1,400-character command's reply stays one readable message."""
    col = max(column - 1, 0)
    if len(command) <= width:
        return f"{command}\n{' ' * col}^"
    start = max(0, min(col - width // 2, len(command) - width))
    before = MARK if start > 0 else ""
    after = MARK if start + width < len(command) else ""
    window = f"{before}{command[start : start + width]}{after}"
    return f"{window}\n{' ' * (len(before) + col - start)}^"


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - len(MARK)] + MARK


def said(error: BaseException) -> str | None:
    """The sentence for an expected error, or None when the error is a bug."""
    if isinstance(error, errors.CommandParseError):
        head = _("That command does not parse: {message}", message=_clip(error.message, 300))
        width = (MAX_MESSAGE - len(head) - len("\n```\n\n```") - 1) // 2 - len(MARK) * 2
        return f"{head}\n```\n{caret_window(error.command, error.column, width)}\n```"
    if isinstance(error, errors.CommandRefused):
        return _("Refused: {reason}", reason=error.reason)
    if isinstance(error, errors.PackError):
        return _("The pack refused: {message} ({code})", message=error.message, code=error.code)
    if isinstance(error, errors.BotError):
        return str(error) or type(error).__name__
    if isinstance(error, pydantic.ValidationError) and error.errors():
        # a request an operation refused: name the option
        return refusals.explain(error.errors()[0], refusals.model_named(error.title))
    return None


def unexpected(error: BaseException, where: str) -> tuple[str, str]:
    """A bug, logged here once with a short id: the id, and the sentence naming only it."""
    error_id = secrets.token_hex(4)
    log.error("unexpected error %s in %s", error_id, where or "?", exc_info=error)
    return error_id, _(
        "Something went wrong on our side (error id `{error_id}`). "
        "An admin can find the details in the bot's log.",
        error_id=error_id,
    )
