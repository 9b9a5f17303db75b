"""Leases in the database: which process does a server's background work, which one is connected
to Discord's gateway (bot.discord.gateway), which processes are alive.

A lease is a row of ``leases``: its holder, a ``token`` that grows each time the holder changes,
and when it ``expires`` by the database's clock (one clock for every process, so no two machines
need to agree on the time). A holder renews it well before it expires; a process that stops
cleanly releases it (expires now), so another takes it at once; a process that dies leaves it to
expire. Taking a lease is one statement (an upsert that only replaces an expired row), so two
processes never both get it.

Fencing: a write made for a lease checks, in its own transaction, that the lease is still the
one it was made under (:meth:`LeaseStore.still_held`: holder, token and not expired; PostgreSQL
also locks the row for the transaction, so a takeover waits for the write to commit). A process
cut from the database cannot pass that check, and stops acting on its own clock before the lease
can expire (bot.background.fleet).

Chosen over PostgreSQL's advisory locks because a lease row works on SQLite too, says who holds
what (``/status``, the dashboard, ``/metrics``), and carries the fencing token; an advisory lock
is tied to one connection, and a pool's connection that dies takes the lock with it unseen.
"""

from __future__ import annotations

__all__ = ["MEMBER", "Lease", "LeaseStore", "db_now"]

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Float, and_, delete, select, tuple_, update
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.functions import GenericFunction

from bot.store.db import Database
from bot.store.notify import LEASES, notify
from bot.store.tables import leases

MEMBER = "member:"  # a process's own lease: that it is alive (the share of servers counts them)
FORGET_AFTER = 3600.0  # seconds after which a dead process's member row is deleted


class db_now(GenericFunction[float]):
    """The database's clock in epoch seconds."""

    type = Float()
    name = "db_now"
    inherit_cache = True


@compiles(db_now, "postgresql")
def _now_pg(element: db_now, compiler: Any, **kw: Any) -> str:
    return "CAST(extract(epoch from clock_timestamp()) AS DOUBLE PRECISION)"


@compiles(db_now, "sqlite")
def _now_sqlite(element: db_now, compiler: Any, **kw: Any) -> str:
    return "((julianday('now') - 2440587.5) * 86400.0)"


@dataclass(frozen=True, slots=True)
class Lease:
    name: str
    holder: str
    token: int
    expires: float  # the database's clock

    @property
    def server(self) -> str | None:
        """The server of a ``server:<name>`` lease."""
        return self.name.removeprefix("server:") if self.name.startswith("server:") else None


def _lease(row: Any) -> Lease:
    return Lease(str(row.name), str(row.holder), int(row.token), float(row.expires))


class LeaseStore:
    """The leases of one process (`holder`), each `ttl` seconds long once taken or renewed."""

    def __init__(self, db: Database, holder: str, *, ttl: float) -> None:
        self.db = db
        self.holder = holder
        self.ttl = ttl

    async def take(self, name: str) -> Lease | None:
        """The lease if nobody holds it (never held, released, or expired): a new token. None
        when another process holds it (or this one does: renew that)."""
        now = db_now()
        insert = self.db.insert(leases).values(
            name=name, holder=self.holder, token=1, expires=now + self.ttl, acquired=now
        )
        upsert = insert.on_conflict_do_update(
            index_elements=[leases.c.name],
            set_={
                "holder": self.holder,
                "token": leases.c.token + 1,
                "expires": db_now() + self.ttl,
                "acquired": db_now(),
            },
            where=leases.c.expires < db_now(),
        ).returning(leases.c.name, leases.c.holder, leases.c.token, leases.c.expires)
        async with self.db.begin() as conn:
            row = (await conn.execute(upsert)).first()
        return None if row is None else _lease(row)

    async def renew(self, lease: Lease) -> Lease | None:
        """The lease for another `ttl`, if it is still this one's and has not expired; None when
        it was lost (expired, taken over)."""
        return (await self.renew_all([lease])).get(lease.name)

    async def renew_all(self, held: list[Lease]) -> dict[str, Lease]:
        """:meth:`renew` for many leases in one statement (a process holding a hundred servers
        renews them in one round trip, not a hundred, so the last is not renewed late): the
        renewed ones by name; a lease missing from the answer was lost."""
        if not held:
            return {}
        query = (
            update(leases)
            .where(
                leases.c.holder == self.holder,
                tuple_(leases.c.name, leases.c.token).in_([(h.name, h.token) for h in held]),
                leases.c.expires >= db_now(),
            )
            .values(expires=db_now() + self.ttl)
            .returning(leases.c.name, leases.c.holder, leases.c.token, leases.c.expires)
        )
        async with self.db.begin() as conn:
            rows = (await conn.execute(query)).all()
        return {lease.name: lease for lease in map(_lease, rows)}

    async def release(self, lease: Lease) -> None:
        """Give the lease up now (it expires at once): another process takes it at its next
        look instead of waiting out the TTL."""
        query = update(leases).where(self._same(lease)).values(expires=0.0)
        async with self.db.begin() as conn:
            await conn.execute(query)
            await notify(conn, LEASES, lease.name)  # the others look now, not in a second

    async def still_held(self, conn: AsyncConnection, lease: Lease) -> bool:
        """In the caller's transaction: is `lease` still this process's, unexpired? On
        PostgreSQL the row is locked until the transaction ends, so no takeover can slip
        between this check and the write it guards."""
        query = (
            select(leases.c.token)
            .where(self._same(lease), leases.c.expires > db_now())
            .with_for_update(read=True)
        )
        return (await conn.execute(query)).first() is not None

    async def all(self) -> list[Lease]:
        """Every lease row, live or not (who holds what, for /status)."""
        query = select(leases.c.name, leases.c.holder, leases.c.token, leases.c.expires)
        async with self.db.connect() as conn:
            rows = (await conn.execute(query.order_by(leases.c.name))).all()
        return [_lease(r) for r in rows]

    async def now(self) -> float:
        """The database's clock."""
        async with self.db.connect() as conn:
            return float((await conn.execute(select(db_now()))).scalar_one())

    async def live(self) -> tuple[float, list[Lease]]:
        """The database's clock and every lease unexpired at it, in one read."""
        query = select(
            leases.c.name, leases.c.holder, leases.c.token, leases.c.expires, db_now().label("now")
        ).order_by(leases.c.name)
        async with self.db.connect() as conn:
            rows = (await conn.execute(query)).all()
        if not rows:
            return await self.now(), []
        now = float(rows[0].now)
        return now, [_lease(r) for r in rows if float(r.expires) > now]

    async def forget_dead_members(self) -> None:
        """Delete member rows of processes gone for over an hour (their servers were taken)."""
        query = delete(leases).where(
            leases.c.name.startswith(MEMBER), leases.c.expires < db_now() - FORGET_AFTER
        )
        async with self.db.begin() as conn:
            await conn.execute(query)

    def _same(self, lease: Lease) -> Any:
        return and_(
            leases.c.name == lease.name,
            leases.c.holder == self.holder,
            leases.c.token == lease.token,
        )
