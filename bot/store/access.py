"""Ways into the dashboard and API that need no Discord: the `access` component of the database.

- **API tokens** (``python -m bot token new NAME --rank moderator|admin``): long-lived bearer
  tokens with a name and a rank, listed and revoked by name.
- **Login codes** (``python -m bot login``): one-time dashboard links, good for
  :data:`LOGIN_TTL` seconds, spent on first use.

As with the calendar feeds, only a secret's SHA-256 is stored: a copy of the database opens
nothing. The table is shared through the database file, so the CLI makes a token or a link while
``python -m bot serve`` runs, and the server sees it on the next request.
"""

from __future__ import annotations

__all__ = ["LOGIN_TTL", "TOKEN_PREFIX", "AccessStore", "ApiToken", "Grant"]

import secrets
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import Executable, delete, or_, select, update

from bot.store.calendar_feeds import digest
from bot.store.db import Database
from bot.store.tables import api_tokens as tokens
from bot.store.tables import login_codes as codes

LOGIN_TTL = 300.0  # seconds a login link stays good, as a /dashboard link does
TOKEN_PREFIX = "doom_"  # says what a token is when one turns up in a log or a paste
LAST_USED_EVERY = 60.0  # seconds between writes of a token's last use (not one per request)


@dataclass(frozen=True, slots=True)
class ApiToken:
    """A token as stored: never its secret."""

    name: str
    rank: str  # moderator or admin (bot.operations.access.AccessRequest)
    created_at: datetime
    last_used_at: datetime | None


@dataclass(frozen=True, slots=True)
class Grant:
    """Who a spent login code or a presented token lets in, with what rank."""

    name: str
    rank: str  # moderator or admin (bot.operations.access.AccessRequest)


def _when(value: object) -> datetime | None:
    return None if value is None else datetime.fromtimestamp(float(str(value)), UTC)


class AccessStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def new_token(self, name: str, rank: str, now: datetime) -> str | None:
        """A new token's secret (shown once), or None when a token of that name exists."""
        secret = TOKEN_PREFIX + secrets.token_urlsafe(32)
        query = (
            self.db.insert(tokens)
            .values(name=name, rank=rank, secret_sha256=digest(secret), created_at=now.timestamp())
            .on_conflict_do_nothing(index_elements=[tokens.c.name])
            .returning(tokens.c.name)
        )
        async with self.db.begin() as conn:
            made = (await conn.execute(query)).first()
        return None if made is None else secret

    async def tokens(self) -> list[ApiToken]:
        t = tokens.c
        query = select(t.name, t.rank, t.created_at, t.last_used_at).order_by(t.name)
        async with self.db.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [
            ApiToken(str(r[0]), str(r[1]), _when(r[2]) or datetime.now(UTC), _when(r[3]))
            for r in rows
        ]

    async def revoke(self, name: str) -> bool:
        """Forget the named token (it stops working at once); False when there is none."""
        query = delete(tokens).where(tokens.c.name == name).returning(tokens.c.name)
        async with self.db.begin() as conn:
            return (await conn.execute(query)).first() is not None

    async def token(self, secret: str, now: datetime) -> Grant | None:
        """Who a presented bearer token is, or None (unknown or revoked)."""
        if not secret.startswith(TOKEN_PREFIX):
            return None
        stamp = now.timestamp()
        t = tokens.c
        query = select(t.name, t.rank, t.last_used_at).where(t.secret_sha256 == digest(secret))
        async with self.db.begin() as conn:
            row = (await conn.execute(query)).first()
            if row is not None and (row[2] is None or stamp - float(row[2]) >= LAST_USED_EVERY):
                # another process may have written since the read: the guard keeps it to one
                # write a minute and never moves the last use back
                await conn.execute(
                    update(tokens)
                    .where(
                        t.name == row[0],
                        or_(t.last_used_at.is_(None), t.last_used_at <= stamp - LAST_USED_EVERY),
                    )
                    .values(last_used_at=stamp)
                )
        return None if row is None else Grant(str(row[0]), str(row[1]))

    async def new_login(self, name: str, rank: str, now: datetime) -> str:
        """A one-time login code's secret, good for LOGIN_TTL seconds."""
        secret = secrets.token_urlsafe(32)
        stamp = now.timestamp()
        async with self.db.begin() as conn:
            await conn.execute(delete(codes).where(codes.c.expires_at <= stamp))
            await conn.execute(
                codes.insert().values(
                    secret_sha256=digest(secret), name=name, rank=rank, expires_at=stamp + LOGIN_TTL
                )
            )
        return secret

    async def login(self, secret: str, now: datetime, *, spend: bool) -> Grant | None:
        """Who a login code lets in while it is good, or None; `spend` uses it up (the
        "Log in" button does; opening the link, which a preview may do, does not)."""
        good = (codes.c.secret_sha256 == digest(secret)) & (codes.c.expires_at > now.timestamp())
        # spent: one DELETE decides, so of two presses at once (in any processes) only one
        # gets the row back; the other's DELETE finds it gone
        query: Executable = (
            delete(codes).where(good).returning(codes.c.name, codes.c.rank)
            if spend
            else select(codes.c.name, codes.c.rank).where(good)
        )
        async with self.db.begin() as conn:
            row = (await conn.execute(query)).first()
        return None if row is None else Grant(str(row[0]), str(row[1]))
