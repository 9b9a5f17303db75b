"""The one place that turns an error into what the user sees.

User errors (bad input, refused commands, an unreachable server) become a clear ephemeral sentence.
Anything else is a bug: it is logged with a short id and the user sees only that id, never a
traceback, so a moderator can quote the id and an admin can find the log entry.
"""

from __future__ import annotations

__all__ = ["ErrorReply", "describe", "report"]

import logging
from dataclasses import dataclass
from typing import Any

import discord
from discord import app_commands

from bot import errors
from bot.discord.slash.fit import clip
from bot.i18n import _
from bot.operations import refusal

log = logging.getLogger(__name__)

MAX_CONTENT = 2000  # Discord's limit on a message's content (bot.discord.slash.limits)


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
    found = refusal.said(error)
    if found is not None:
        return found
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


def describe(error: BaseException, *, where: str = "") -> ErrorReply:
    """Map an error to the reply; unexpected ones are logged here, once, with their id."""
    error = _unwrap(error)
    text = _user_text(error)
    if text is not None:
        log.debug("user error %s: %s", type(error).__name__, text)
        return ErrorReply(clip(text, MAX_CONTENT), None)
    error_id, text = refusal.unexpected(error, where)
    return ErrorReply(text, error_id)


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
