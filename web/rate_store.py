"""quart_rate_limiter's store on the bot's database (bot.store.rate_limits), so the dashboard's
limits count the requests to every process that serves it.

The limiter reads a key's TAT, then sets the new one it computed; two processes doing so at
once would each overwrite the other's count. So a set that follows this request's read of the
key is sent as what it is, "one interval more" (the new TAT less the one read), and the database
adds it to whatever TAT is stored by then.

A database that fails must not fail the request: the limit lets it through (fails open) and
says so in the log, once a minute at most.
"""

from __future__ import annotations

__all__ = ["DatabaseRateStore"]

import logging
from contextvars import ContextVar
from datetime import UTC, datetime

from quart_rate_limiter import RateLimiterStoreABC
from sqlalchemy.exc import SQLAlchemyError

from bot.errors import BotError
from bot.store.db import Database
from bot.store.rate_limits import RateLimitStore

log = logging.getLogger(__name__)

PRUNE_EVERY = 60.0  # seconds between sweeps of the keys whose TAT has passed
WARN_EVERY = 60.0  # seconds between warnings while the database fails
FAILURES = (BotError, SQLAlchemyError, OSError)

# per request (a context of its own): key -> (now, TAT) of the request's last read of the key
_read: ContextVar[dict[str, tuple[float, float]]] = ContextVar("doom_rate_read")


class DatabaseRateStore(RateLimiterStoreABC):
    def __init__(self, db: Database) -> None:
        self.store = RateLimitStore(db)
        self._pruned = 0.0
        self._warned = float("-inf")

    async def before_serving(self) -> None:
        pass

    async def after_serving(self) -> None:
        pass

    async def get(self, key: str, default: datetime) -> datetime:
        now = default.timestamp()  # the limiter passes its now as the default
        try:
            stored = await self.store.tat(key)
        except FAILURES as exc:
            self._warn(now, exc)
            return default
        seen = _read.get({})
        _read.set({**seen, key: (now, max(stored or now, now))})  # a copy: contexts share none
        return default if stored is None else datetime.fromtimestamp(stored, UTC)

    async def set(self, key: str, tat: datetime) -> None:
        new = tat.timestamp()
        read = _read.get({}).get(key)
        try:
            if read is None:
                await self.store.put(key, new)
                return
            now, base = read
            await self.store.count(key, now, new - base)
            if now - self._pruned >= PRUNE_EVERY:
                self._pruned = now
                await self.store.prune(now)
        except FAILURES as exc:
            self._warn(read[0] if read else new, exc)

    def _warn(self, now: float, exc: BaseException) -> None:
        if now - self._warned >= WARN_EVERY:
            self._warned = now
            log.warning("rate limits not counted (letting requests through): %s", exc)
