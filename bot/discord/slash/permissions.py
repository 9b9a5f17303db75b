"""Who may run which command, decided at run time from the settings.

Discord's ``default_permissions`` only hides commands in the client and a guild admin can change it,
so every command also carries one of these checks, which read the configured role and user ids on
each call (a settings reload takes effect without re-syncing the command tree).
"""

from __future__ import annotations

__all__ = ["NotPermitted", "is_admin", "is_moderator", "rank_of"]

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import discord
from discord import app_commands

from bot.i18n import N_, _
from bot.operations.ranks import Rank, rank_for

if TYPE_CHECKING:
    from bot.config import Settings

log = logging.getLogger(__name__)

T = TypeVar("T")


class NotPermitted(app_commands.CheckFailure):
    """A check refused the command; ``str(self)`` is the sentence the user sees."""


def _settings(interaction: discord.Interaction[Any]) -> Settings:
    settings: Settings = interaction.client.settings
    return settings


def rank_of(user: discord.abc.User, settings: Settings) -> Rank:
    """The rank the settings give this user (roles count only for guild members)."""
    role_ids = {r.id for r in user.roles} if isinstance(user, discord.Member) else set()
    return rank_for(user.id, role_ids, settings)


def _require(rank: Rank, what: str) -> Callable[[T], T]:
    async def predicate(interaction: discord.Interaction[Any]) -> bool:
        have = rank_of(interaction.user, _settings(interaction))
        if have >= rank:
            return True
        name = interaction.command.qualified_name if interaction.command else _("this command")
        log.info("refused /%s to user %s (rank %s)", name, interaction.user.id, have.name)
        raise NotPermitted(_("You need the {role} role to use /{name}.", role=_(what), name=name))

    return app_commands.check(predicate)


def is_moderator() -> Callable[[T], T]:
    """Moderators and admins (configured role ids or user ids) may run the command."""
    return _require(Rank.MODERATOR, N_("moderator"))


def is_admin() -> Callable[[T], T]:
    """Only admins (configured role ids or user ids) may run the command."""
    return _require(Rank.ADMIN, N_("admin"))
