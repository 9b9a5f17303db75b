"""Access without Discord: API tokens and one-time dashboard links (bot.store.access).

An admin makes them (``python -m bot token new``, ``python -m bot login``, the dashboard's
tokens page); each change is audited. A token or a link carries its own rank, fixed when it was
made: there are no Discord roles to ask again, so revoking is how a token loses its rights.
"""

from __future__ import annotations

__all__ = [
    "AccessRequest",
    "Grant",
    "NewToken",
    "login",
    "login_grant",
    "new_token",
    "rank_of",
    "revoke",
    "token_grant",
    "tokens",
]

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict

from bot import errors
from bot.i18n import _
from bot.operations.ranks import Rank
from bot.store.access import AccessStore, ApiToken, Grant

if TYPE_CHECKING:
    from bot.operations.base import Operations
    from bot.operations.caller import Caller

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,39}")


class AccessRequest(BaseModel):
    """A token's (or a login link's) name, and the rank it gives."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str  # checked by the operation, so a bad one is refused in words (_checked_name)
    rank: Literal["moderator", "admin"] = "moderator"


@dataclass(frozen=True)
class NewToken:
    """A token just made: its secret is shown this once and never kept."""

    name: str
    rank: str
    secret: str
    text: str


def rank_of(word: str) -> Rank:
    """The rank a stored token or login code gives."""
    return Rank.ADMIN if word == "admin" else Rank.MODERATOR


def _store(ops: Operations) -> AccessStore:
    return AccessStore(ops.services.db)


def _checked_name(name: str) -> str:
    if not _NAME.fullmatch(name):
        raise errors.ValidationError(
            _(
                "A token's name is 1 to 40 letters, digits, dots, dashes or underscores, "
                "starting with a letter or digit: {name} is not one.",
                name=repr(name),
            ),
            field="name",
        )
    return name


async def new_token(ops: Operations, caller: Caller, req: AccessRequest) -> NewToken:
    ops.require(caller, Rank.ADMIN, "token new")
    name = _checked_name(req.name)
    secret = await _store(ops).new_token(name, req.rank, ops.now())
    if secret is None:
        raise errors.ValidationError(
            _(
                "There is already a token called {name}: revoke it first, or pick another name.",
                name=name,
            ),
            field="name",
        )
    outcome = _("API token {name} made ({rank}).", name=name, rank=_(req.rank))
    await ops.audit(caller, None, "token new", {"name": name, "rank": req.rank}, outcome)
    text = _(
        "API token {name} ({rank}); it is shown only now, keep it secret. Send it as the "
        "header 'Authorization: Bearer <token>'.",
        name=name,
        rank=_(req.rank),
    )
    return NewToken(name, req.rank, secret, text)


async def tokens(ops: Operations, caller: Caller) -> list[ApiToken]:
    ops.require(caller, Rank.ADMIN, "token list")
    return await _store(ops).tokens()


async def revoke(ops: Operations, caller: Caller, name: str) -> str:
    ops.require(caller, Rank.ADMIN, "token revoke")
    if not await _store(ops).revoke(name):
        raise errors.NotFound(_("There is no token called {name}.", name=repr(name)), field="name")
    outcome = _("API token {name} revoked: it no longer works.", name=name)
    await ops.audit(caller, None, "token revoke", {"name": name}, outcome)
    return outcome


async def login(ops: Operations, caller: Caller, req: AccessRequest) -> str:
    """A one-time login code for the dashboard, for someone called `req.name`."""
    ops.require(caller, Rank.ADMIN, "login")
    if not req.name.strip() or len(req.name) > 80:
        raise errors.ValidationError(
            _("Say who the link is for in 1 to 80 characters."), field="name"
        )
    secret = await _store(ops).new_login(req.name, req.rank, ops.now())
    outcome = _(
        "One-time dashboard link made for {name} ({rank}).", name=req.name, rank=_(req.rank)
    )
    await ops.audit(caller, None, "login", {"name": req.name, "rank": req.rank}, outcome)
    return secret


async def token_grant(ops: Operations, secret: str) -> Grant | None:
    """Who a bearer token lets in now, or None (unknown or revoked)."""
    return await _store(ops).token(secret, ops.now())


async def login_grant(ops: Operations, secret: str, *, spend: bool) -> Grant | None:
    """Who a login link's code lets in now, or None; `spend` uses it up."""
    return await _store(ops).login(secret, ops.now(), spend=spend)
