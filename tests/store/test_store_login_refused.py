"""A process cut from PostgreSQL by its login (its role may no longer log in, its sessions
ended with pg_terminate_backend), on a real server: the store says the database cannot be
reached (StoreUnavailable, not the driver's error), and a fleet holding leases through it stops
their work on its own clock before they can expire; let in again, both carry on."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from sqlalchemy import select

from bot.background.fleet import Fleet
from bot.store.db import Database, StoreUnavailable
from bot.store.leases import Lease, LeaseStore

TTL = 3.0
MARGIN = 1.0


@dataclass
class Cut:
    """A database reached as a role of its own, which the test can cut and let in again."""

    pg: Any
    user: str
    db: Database

    def cut(self) -> None:
        self.pg.psql(f"ALTER ROLE {self.user} NOLOGIN")
        self.pg.psql(
            f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '{self.user}'"
        )

    def let_in(self) -> None:
        self.pg.psql(f"ALTER ROLE {self.user} LOGIN")


@pytest.fixture
async def cut_db(postgres: Any) -> AsyncIterator[Cut]:
    url = postgres.new_database(template="doom_template")
    database = url.rsplit("/", 1)[1]
    user = f"{database}_cut"
    postgres.psql(f"CREATE ROLE {user} LOGIN IN ROLE postgres")
    db = Database(url.replace("://postgres@", f"://{user}@", 1))
    try:
        yield Cut(postgres, user, db)
    finally:
        await db.close()


async def test_a_refused_login_is_said_as_an_unreachable_database(cut_db: Cut) -> None:
    async with cut_db.db.connect() as conn:
        assert (await conn.execute(select(1))).scalar() == 1
    cut_db.cut()
    for _ in range(2):  # the pool's connection found dead, then a new one refused
        with pytest.raises(StoreUnavailable) as said:
            async with cut_db.db.connect() as conn:
                await conn.execute(select(1))
        assert "cannot be reached" in str(said.value)
    assert "not permitted to log in" in str(said.value)
    cut_db.let_in()
    async with cut_db.db.connect() as conn:
        assert (await conn.execute(select(1))).scalar() == 1


@dataclass(eq=False)
class Work:
    said: list[tuple[str, str]] = field(default_factory=list)

    async def gain(self, lease: Lease) -> None:
        self.said.append(("gain", lease.name))

    async def lose(self, lease: Lease) -> None:
        self.said.append(("lose", lease.name))


@dataclass
class Clock:
    now: float = 1000.0

    def __call__(self) -> float:
        return self.now


async def test_a_holder_whose_login_is_refused_stops_its_work_before_the_lease_ends(
    cut_db: Cut,
) -> None:
    clock, work = Clock(), Work()
    fleet = Fleet(
        LeaseStore(cut_db.db, "cut:1:a", ttl=TTL), ["main"], work, margin=MARGIN, clock=clock
    )
    await fleet.step()
    assert fleet.holds("main") and work.said == [("gain", "server:main")]
    cut_db.cut()
    clock.now += TTL / 3  # time to renew: the renewal fails, the lease still runs
    await fleet.step()
    assert fleet.down_since == clock.now and fleet.holds("main")
    assert "not permitted to log in" in fleet.last_error
    clock.now += TTL - MARGIN - TTL / 3  # the margin before the lease can expire
    await fleet.step()
    await _settled()
    assert not fleet.holds("main") and work.said[-1] == ("lose", "server:main")
    cut_db.let_in()
    clock.now += TTL  # the lease expired by the database's clock too
    await _wait_expired(cut_db.db)
    await fleet.step()
    assert fleet.down_since is None and fleet.holds("main")
    assert work.said[-1] == ("gain", "server:main")
    await fleet.stop()


async def _settled() -> None:
    """The work's stop runs in a task of its own (Fleet._unreachable): let it run."""
    for _ in range(10):
        await asyncio.sleep(0)


async def _wait_expired(db: Database) -> None:
    store = LeaseStore(db, "probe", ttl=TTL)
    for _ in range(60):
        if not any(lease.name == "server:main" for lease in (await store.live())[1]):
            return
        await asyncio.sleep(0.1)
    raise AssertionError("the lease did not expire")


async def test_a_holder_stops_its_work_whatever_keeps_it_from_renewing(cut_db: Cut) -> None:
    """A renewal that fails with an error that does not say "unreachable" (here the leases
    table is gone: the driver's own error) stops the work on the holder's clock all the same."""
    clock, work = Clock(), Work()
    fleet = Fleet(
        LeaseStore(cut_db.db, "odd:1:a", ttl=TTL), ["main"], work, margin=MARGIN, clock=clock
    )
    await fleet.step()
    assert fleet.holds("main")
    database = cut_db.db.url.database
    cut_db.pg.psql("ALTER TABLE leases RENAME TO leases_away", database=database)
    try:
        clock.now += TTL - MARGIN
        await fleet.step()
        await _settled()
        assert not fleet.holds("main") and work.said[-1] == ("lose", "server:main")
        assert "leases" in fleet.last_error
    finally:
        cut_db.pg.psql("ALTER TABLE leases_away RENAME TO leases", database=database)
    clock.now += TTL
    await _wait_expired(cut_db.db)
    await fleet.step()
    assert fleet.holds("main") and work.said[-1] == ("gain", "server:main")
    await fleet.stop()
