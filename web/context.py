"""What every part of the dashboard shares: the bot's services, the bot itself (for Discord
look-ups and extensions), the login state, and who is asking.

The web face holds no permissions of its own: a user's rank is the one
:func:`bot.operations.ranks.rank_for` gives the roles Discord reports for them *now*, asked
through the bot (``GET /guilds/{guild}/members/{user}``; the local Discord answers it in tests
and the console). Writes always ask again; reads reuse an answer for a few seconds.
"""

from __future__ import annotations

__all__ = ["EXTENSION", "HostBot", "WebError", "WebState", "WebUser", "operations", "state"]

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import discord
from quart import current_app

from bot.i18n import _
from bot.operations.ranks import Rank, rank_for
from web.names import MemberNames, display_name

if TYPE_CHECKING:
    from bot.config import Settings
    from bot.operations import Operations
    from bot.services import Services
    from web.auth import LoginLinks, Sessions, WebSession
    from web.metrics import Metrics

log = logging.getLogger(__name__)

# the key of the dashboard's state in the app's `extensions`, as Quart extensions keep theirs
EXTENSION = "doom"
READ_RANK_TTL = 10.0  # seconds a read may rely on the last roles Discord reported


class HostBot(Protocol):
    """What the dashboard uses of the bot (bot.app.DoomBot)."""

    http: Any
    failed_extensions: dict[str, BaseException]
    ops: Operations  # every write goes through it

    @property
    def extensions(self) -> Mapping[str, Any]: ...
    @property
    def cogs(self) -> Mapping[str, Any]: ...

    async def reload_named(self, name: str) -> str: ...
    async def post(self, channel_id: int, **kwargs: Any) -> Any: ...
    def audit_channel_id(self, server: Any) -> int | None: ...


class WebError(Exception):
    """A refusal with the HTTP status, the sentence the user sees and, when one input is at
    fault, its name (the API answers it as `field`)."""

    def __init__(self, status: int, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.field = field


@dataclass(frozen=True, slots=True)
class WebUser:
    """The person behind a request, with the rank their current roles give."""

    id: int
    name: str
    guild_id: int
    rank: Rank
    session: WebSession
    by_token: bool  # an API bearer token (no cookie, so no CSRF token needed)

    @property
    def is_admin(self) -> bool:
        return self.rank >= Rank.ADMIN


@dataclass
class WebState:
    services: Services
    bot: HostBot
    settings: Settings
    links: LoginLinks
    sessions: Sessions
    metrics: Metrics
    clock: Callable[[], float] = time.time
    base_url: str = ""
    names: MemberNames = field(init=False)

    def __post_init__(self) -> None:
        self.names = MemberNames(self.bot)

    async def rank(self, session: WebSession, *, fresh: bool) -> Rank:
        """The rank the user's roles in Discord give them now (see the module docstring)."""
        now = self.clock()
        if not fresh and session.rank is not None and now - session.rank_at < READ_RANK_TTL:
            return session.rank
        try:
            member = await self.bot.http.get_member(session.guild_id, session.user_id)
            roles = [int(r) for r in member.get("roles", [])]
            session.name = display_name(member) or session.name  # as Discord shows it now
        except discord.NotFound:
            roles = []  # no longer in the guild: only user-id grants remain
        except discord.HTTPException as exc:
            log.warning("could not read the roles of user %s: HTTP %s", session.user_id, exc.status)
            raise WebError(503, _("Discord did not say what roles you hold; try again.")) from None
        rank = rank_for(session.user_id, roles, self.settings)
        session.rank, session.rank_at = rank, now
        return rank


def state() -> WebState:
    """The dashboard's state, from the app handling this request (also in extension apps)."""
    found: WebState = current_app.extensions[EXTENSION]
    return found


def operations() -> Operations:
    """The application layer every face calls (the bot's)."""
    return state().bot.ops
