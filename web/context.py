"""What every part of the dashboard shares: the core's services and operations, the Discord
bot when one runs (for its members and extensions), the login state, and who is asking.

The web face holds no permissions of its own. A user who logged in with a /dashboard link has
the rank :func:`bot.operations.ranks.rank_for` gives the roles Discord reports for them *now*,
asked through the bot (``GET /guilds/{guild}/members/{user}``; the local Discord answers it in
tests and the console): writes always ask again, reads reuse an answer for a few seconds. A
login link or an API token made without Discord (bot.operations.access) carries its own rank.
"""

from __future__ import annotations

__all__ = ["EXTENSION", "HostBot", "WebError", "WebState", "WebUser", "operations", "state"]

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from quart import current_app

from bot import errors
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
    """What the dashboard uses of the Discord bot (bot.discord.app.DoomBot), when one runs."""

    failed_extensions: dict[str, BaseException]

    @property
    def extensions(self) -> Mapping[str, Any]: ...
    @property
    def cogs(self) -> Mapping[str, Any]: ...

    async def reload_named(self, name: str) -> str: ...
    def member_name(self, guild_id: int, user_id: int) -> str | None: ...
    async def member(self, guild_id: int, user_id: int) -> Mapping[str, Any] | None: ...


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
    ops: Operations  # every read and write goes through it
    bot: HostBot | None  # None: no Discord in this process (python -m bot serve)
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
        if session.fixed_rank is not None:
            return session.fixed_rank
        if self.bot is None:
            return Rank.NONE  # a Discord login, and no Discord to ask: no rank
        now = self.clock()
        if not fresh and session.rank is not None and now - session.rank_at < READ_RANK_TTL:
            return session.rank
        try:
            member = await self.bot.member(session.guild_id, session.user_id)
        except errors.DiscordUnavailable as exc:
            log.warning("could not read the roles of user %s: %s", session.user_id, exc)
            raise WebError(503, _("Discord did not say what roles you hold; try again.")) from None
        roles = [] if member is None else [int(r) for r in member.get("roles", [])]
        if member is not None:  # else no longer in the guild: only user-id grants remain
            session.name = display_name(member) or session.name  # as Discord shows it now
        rank = rank_for(session.user_id, roles, self.settings)
        session.rank, session.rank_at = rank, now
        await self.sessions.seen(session)  # the next reads, in any process, may rely on it
        return rank


def state() -> WebState:
    """The dashboard's state, from the app handling this request (also in extension apps)."""
    found: WebState = current_app.extensions[EXTENSION]
    return found


def operations() -> Operations:
    """The application layer every face calls (the core's)."""
    return state().ops
