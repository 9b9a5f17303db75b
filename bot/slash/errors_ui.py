"""The one place that turns an error into what the user sees.

User errors (bad input, refused commands, an unreachable server) become a clear ephemeral sentence.
Anything else is a bug: it is logged with a short id and the user sees only that id, never a
traceback, so a moderator can quote the id and an admin can find the log entry.
"""

from __future__ import annotations

__all__ = ["ErrorReply", "caret_window", "describe", "report"]

import logging
import secrets
from dataclasses import dataclass
from typing import Any

import discord
import pydantic
from discord import app_commands

from bot import errors
from bot.i18n import _, refusals
from bot.slash.fit import MARK, clip

log = logging.getLogger(__name__)

MAX_CONTENT = 2000  # Discord's limit on a message's content (bot.localdiscord.limits)


@dataclass(frozen=True, slots=True)
class ErrorReply:
    text: str
    error_id: str | None  # set for unexpected errors only


def _unwrap(error: BaseException) -> BaseException:
    if isinstance(error, app_commands.CommandInvokeError):
        return error.original
    # a transformer that raised one of our errors (unknown server, ...) explains itself
    if isinstance(error, app_commands.TransformerError) and isinstance(
        error.__cause__, errors.BotError
    ):
        return error.__cause__
    return error


def _user_text(error: BaseException) -> str | None:
    """The sentence for an expected error, or None when the error is a bug."""
    if isinstance(error, errors.CommandParseError):
        head = _("That command does not parse: {message}", message=clip(error.message, 300))
        width = (MAX_CONTENT - len(head) - len("\n```\n\n```") - 1) // 2 - len(MARK) * 2
        return f"{head}\n```\n{caret_window(error.command, error.column, width)}\n```"
    if isinstance(error, errors.CommandRefused):
        return _("Refused: {reason}", reason=error.reason)
    if isinstance(error, errors.PackError):
        return _("The pack refused: {message} ({code})", message=error.message, code=error.code)
    if isinstance(error, errors.BotError):
        return str(error) or type(error).__name__
    if isinstance(error, pydantic.ValidationError) and error.errors():
        # a request an operation refused (an option Discord let through): name the option
        return refusals.explain(error.errors()[0], refusals.model_named(error.title))
    if isinstance(error, app_commands.NoPrivateMessage):
        return _("This command works only in a server.")
    if isinstance(error, app_commands.CheckFailure):
        return str(error) or _("You may not use this command.")
    if isinstance(error, app_commands.TransformerError):
        return _("`{value}` is not a valid value for this option.", value=error.value)
    if isinstance(error, app_commands.CommandOnCooldown):
        return _("Slow down: try again in {seconds} s.", seconds=round(error.retry_after))
    if isinstance(error, app_commands.CommandNotFound | app_commands.CommandSignatureMismatch):
        return _("This command is out of date; an admin should re-sync the commands.")
    return None


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


def describe(error: BaseException, *, where: str = "") -> ErrorReply:
    """Map an error to the reply; unexpected ones are logged here, once, with their id."""
    error = _unwrap(error)
    text = _user_text(error)
    if text is not None:
        log.debug("user error %s: %s", type(error).__name__, text)
        return ErrorReply(clip(text, MAX_CONTENT), None)
    error_id = secrets.token_hex(4)
    log.error("unexpected error %s in %s", error_id, where or "?", exc_info=error)
    return ErrorReply(
        _(
            "Something went wrong on our side (error id `{error_id}`). "
            "An admin can find the details in the bot's log.",
            error_id=error_id,
        ),
        error_id,
    )


async def report(interaction: discord.Interaction[Any], error: BaseException) -> ErrorReply:
    """Describe the error and send it to the user, ephemeral, whatever state the response is in."""
    name = interaction.command.qualified_name if interaction.command else "component"
    reply = describe(error, where=f"/{name}")
    try:
        if interaction.response.is_done():
            await interaction.followup.send(reply.text, ephemeral=True)
        else:
            await interaction.response.send_message(reply.text, ephemeral=True)
    except discord.HTTPException:
        log.warning("could not deliver an error reply for /%s", name, exc_info=True)
    return reply
