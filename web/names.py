"""Discord members' names as Discord shows them now (the server nickname, else the display
name, else the user name), for the audit log's "who" and the page header.

The bot's member cache answers first; else one ``GET /guilds/{guild}/members/{user}`` each, kept
in a bounded, expiring cache, so a page of 50 audit rows asks Discord once per person at most
every few minutes. A name Discord does not give (the member left, Discord is down) is None: the
page falls back to the name recorded with the entry, else the id.
"""

from __future__ import annotations

__all__ = ["MemberNames", "display_name"]

import asyncio
import logging
import time
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from cachetools import TLRUCache

from bot import errors

if TYPE_CHECKING:
    from web.context import HostBot

log = logging.getLogger(__name__)

NAME_TTL = 600.0  # seconds a name found is reused
MISS_TTL = 60.0  # seconds a name not found is not asked again
MAX_NAMES = 2048


def display_name(member: Mapping[str, Any]) -> str | None:
    """The name Discord shows for a member payload: nick, else global_name, else username."""
    user = member.get("user") or {}
    for name in (member.get("nick"), user.get("global_name"), user.get("username")):
        if name:
            return str(name)
    return None


class MemberNames:
    """Names of a guild's members by id (see the module docstring); `clock` for tests."""

    def __init__(
        self,
        bot: HostBot | None,
        *,
        clock: Callable[[], float] = time.monotonic,
        size: int = MAX_NAMES,
    ) -> None:
        self._bot = bot
        # a name found lives NAME_TTL, a miss MISS_TTL (TLRU: a lifetime per entry)
        self._cache: TLRUCache[tuple[int, int], str | None] = TLRUCache(
            maxsize=size,
            ttu=lambda _key, value, now: now + (NAME_TTL if value else MISS_TTL),
            timer=clock,
        )

    async def name(self, guild_id: int, user_id: int) -> str | None:
        if self._bot is None:
            return None  # no Discord in this process: the name recorded with the entry
        key = (guild_id, user_id)
        if key in self._cache:
            found: str | None = self._cache[key]
            return found
        found = self._bot.member_name(guild_id, user_id)
        if found is None:
            try:
                member = await self._bot.member(guild_id, user_id)
            except errors.DiscordUnavailable as exc:
                log.info("no name for user %s from Discord: %s", user_id, exc)
                return None  # not cached: the next page asks again
            found = None if member is None else display_name(member)
        self._cache[key] = found
        return found

    async def names(self, guild_id: int, user_ids: Iterable[int]) -> dict[int, str | None]:
        """The names of these users (each asked once)."""
        unique = list(dict.fromkeys(user_ids))
        found = await asyncio.gather(*(self.name(guild_id, u) for u in unique))
        return dict(zip(unique, found, strict=True))
