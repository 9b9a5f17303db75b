"""A server's pack exchanges one at a time across the bot processes sharing a PostgreSQL.

The pack has one input and one outcome record per server: two processes asking it at once
would each read the other's outcome (or run the other's input). Each exchange holds a
transaction-level advisory lock named after the server: released when the exchange ends, and
by PostgreSQL itself when the holder's connection dies, so a killed process never leaves it
held. A frozen process can hold it, so the wait is bounded (``lock_timeout``) and said.
"""

from __future__ import annotations

__all__ = ["pack_lock"]

import hashlib
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager

from sqlalchemy import func, select, text
from sqlalchemy.exc import DBAPIError

from bot.errors import ServerUnavailable
from bot.i18n import lazy
from bot.store.db import Database

_LOCK_NOT_AVAILABLE = "55P03"


def _key(name: str) -> int:
    """A signed 64-bit advisory lock key for `name` (PostgreSQL's bigint)."""
    digest = hashlib.blake2b(f"doom.pack:{name}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def pack_lock(
    db: Database, server: str, wait: float
) -> Callable[[], AbstractAsyncContextManager[None]]:
    """The lock of `server`'s pack exchanges in `db`, waited for at most `wait` seconds."""
    key = _key(server)
    timeout_ms = max(1, round(wait * 1000))

    @asynccontextmanager
    async def held() -> AsyncIterator[None]:
        async with db.begin() as conn:
            await conn.execute(text(f"SET LOCAL lock_timeout = {timeout_ms}"))
            try:
                await conn.execute(select(func.pg_advisory_xact_lock(key)))
            except DBAPIError as exc:
                code = getattr(exc.orig, "sqlstate", None)
                if code != _LOCK_NOT_AVAILABLE:
                    raise
                raise ServerUnavailable(
                    lazy(
                        "Another bot process has been talking to the pack on server {name} "
                        "for over {seconds} s: nothing was sent. Try again in a moment.",
                        name=repr(server),
                        seconds=format(wait, "g"),
                    )
                ) from None
            yield

    return held
