"""The dashboard's rate limits, counted in the database so they hold across every process that
serves it (a brute-forcer behind a load balancer meets one limit, not one per process).

The limits are GCRA (quart_rate_limiter): each key has a theoretical arrival time (TAT), and a
request is refused while the TAT is too far ahead. Counting a request moves the TAT on by the
limit's interval from the later of the stored TAT and now, in one upsert: two processes counting
at once both count. A TAT in the past says no more than no row: such rows are pruned.
"""

from __future__ import annotations

__all__ = ["RateLimitStore"]

from sqlalchemy import delete, select

from bot.store.db import Database, greatest
from bot.store.tables import rate_limits as limits


class RateLimitStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def tat(self, key: str) -> float | None:
        async with self.db.connect() as conn:
            query = select(limits.c.tat).where(limits.c.key == key)
            found = (await conn.execute(query)).scalar_one_or_none()
        return None if found is None else float(found)

    async def count(self, key: str, now: float, step: float) -> None:
        """One request more: the key's TAT becomes max(TAT, now) + step."""
        query = self.db.insert(limits).values(key=key, tat=now + step)
        query = query.on_conflict_do_update(
            index_elements=[limits.c.key],
            set_={"tat": greatest(limits.c.tat, now) + step},
        )
        async with self.db.begin() as conn:
            await conn.execute(query)

    async def put(self, key: str, tat: float) -> None:
        """Set the key's TAT as given (no earlier count to build on)."""
        query = self.db.insert(limits).values(key=key, tat=tat)
        query = query.on_conflict_do_update(index_elements=[limits.c.key], set_={"tat": tat})
        async with self.db.begin() as conn:
            await conn.execute(query)

    async def prune(self, now: float) -> int:
        """Forget the keys whose TAT has passed; how many."""
        async with self.db.begin() as conn:
            done = await conn.execute(delete(limits).where(limits.c.tat < now))
        return int(done.rowcount or 0)
