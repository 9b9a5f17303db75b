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
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime

from bot.store.calendar_feeds import digest
from bot.store.db import Database

LOGIN_TTL = 300.0  # seconds a login link stays good, as a /dashboard link does
TOKEN_PREFIX = "doom_"  # says what a token is when one turns up in a log or a paste
LAST_USED_EVERY = 60.0  # seconds between writes of a token's last use (not one per request)

_MIGRATIONS = [
    """
CREATE TABLE api_tokens (
    name TEXT PRIMARY KEY,
    rank TEXT NOT NULL,               -- 'moderator' or 'admin'
    secret_sha256 TEXT NOT NULL UNIQUE,
    created_at REAL NOT NULL,         -- UTC epoch seconds
    last_used_at REAL
);
CREATE TABLE login_codes (
    secret_sha256 TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    rank TEXT NOT NULL,
    expires_at REAL NOT NULL
);
""",
]


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
        self._migrated = False

    async def migrate(self) -> None:
        if not self._migrated:
            await self.db.migrate("access", _MIGRATIONS)
            self._migrated = True

    async def new_token(self, name: str, rank: str, now: datetime) -> str | None:
        """A new token's secret (shown once), or None when a token of that name exists."""
        await self.migrate()
        secret = TOKEN_PREFIX + secrets.token_urlsafe(32)

        def work(db: sqlite3.Connection) -> bool:
            cursor = db.execute(
                "INSERT INTO api_tokens (name, rank, secret_sha256, created_at)"
                " VALUES (?, ?, ?, ?) ON CONFLICT(name) DO NOTHING",
                (name, rank, digest(secret), now.timestamp()),
            )
            return cursor.rowcount == 1

        return secret if await self.db.run(work) else None

    async def tokens(self) -> list[ApiToken]:
        await self.migrate()
        rows = await self.db.run(
            lambda db: db.execute(
                "SELECT name, rank, created_at, last_used_at FROM api_tokens ORDER BY name"
            ).fetchall()
        )
        return [
            ApiToken(str(r[0]), str(r[1]), _when(r[2]) or datetime.now(UTC), _when(r[3]))
            for r in rows
        ]

    async def revoke(self, name: str) -> bool:
        """Forget the named token (it stops working at once); False when there is none."""
        await self.migrate()
        cursor = await self.db.run(
            lambda db: db.execute("DELETE FROM api_tokens WHERE name = ?", (name,))
        )
        return bool(cursor.rowcount)

    async def token(self, secret: str, now: datetime) -> Grant | None:
        """Who a presented bearer token is, or None (unknown or revoked)."""
        if not secret.startswith(TOKEN_PREFIX):
            return None
        await self.migrate()
        stamp = now.timestamp()

        def work(db: sqlite3.Connection) -> tuple[object, ...] | None:
            row: tuple[object, ...] | None = db.execute(
                "SELECT name, rank, last_used_at FROM api_tokens WHERE secret_sha256 = ?",
                (digest(secret),),
            ).fetchone()
            if row is not None and (
                row[2] is None or stamp - float(str(row[2])) >= LAST_USED_EVERY
            ):
                db.execute("UPDATE api_tokens SET last_used_at = ? WHERE name = ?", (stamp, row[0]))
            return row

        row = await self.db.run(work)
        return None if row is None else Grant(str(row[0]), str(row[1]))

    async def new_login(self, name: str, rank: str, now: datetime) -> str:
        """A one-time login code's secret, good for LOGIN_TTL seconds."""
        await self.migrate()
        secret = secrets.token_urlsafe(32)
        stamp = now.timestamp()

        def work(db: sqlite3.Connection) -> None:
            db.execute("DELETE FROM login_codes WHERE expires_at <= ?", (stamp,))
            db.execute(
                "INSERT INTO login_codes (secret_sha256, name, rank, expires_at)"
                " VALUES (?, ?, ?, ?)",
                (digest(secret), name, rank, stamp + LOGIN_TTL),
            )

        await self.db.run(work)
        return secret

    async def login(self, secret: str, now: datetime, *, spend: bool) -> Grant | None:
        """Who a login code lets in while it is good, or None; `spend` uses it up (the
        "Log in" button does; opening the link, which a preview may do, does not)."""
        await self.migrate()
        stamp = now.timestamp()

        def work(db: sqlite3.Connection) -> tuple[object, ...] | None:
            row: tuple[object, ...] | None = db.execute(
                "SELECT name, rank FROM login_codes WHERE secret_sha256 = ? AND expires_at > ?",
                (digest(secret), stamp),
            ).fetchone()
            if row is not None and spend:
                # one DELETE decides: of two presses at once, only one removes the row
                gone = db.execute(
                    "DELETE FROM login_codes WHERE secret_sha256 = ?", (digest(secret),)
                ).rowcount
                return row if gone else None
            return row

        row = await self.db.run(work)
        return None if row is None else Grant(str(row[0]), str(row[1]))
