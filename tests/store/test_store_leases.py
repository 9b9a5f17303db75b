"""bot.store.leases on both engines: one holder at a time, a new token at each change of holder,
renewal only by the holder, release lets another take it at once, fencing in a transaction."""

from __future__ import annotations

import asyncio
from typing import Any

from bot.store.db import Database
from bot.store.leases import LeaseStore


async def test_one_holder_until_release_then_another_with_a_new_token(store_db: Database) -> None:
    a, b = LeaseStore(store_db, "a", ttl=30), LeaseStore(store_db, "b", ttl=30)
    first = await a.take("server:main")
    assert first is not None and (first.holder, first.token) == ("a", 1)
    assert await b.take("server:main") is None  # held
    assert await a.take("server:main") is None  # the holder renews; it does not take again
    renewed = await a.renew(first)
    assert renewed is not None and renewed.token == 1 and renewed.expires >= first.expires
    assert await b.renew(first) is None  # only the holder renews
    await a.release(first)
    second = await b.take("server:main")
    assert second is not None and (second.holder, second.token) == ("b", 2)
    assert await a.renew(first) is None  # the old token is dead
    [row] = await a.all()
    assert (row.holder, row.token, row.server) == ("b", 2, "main")


async def test_renewing_many_at_once_renews_only_those_still_held(store_db: Database) -> None:
    a, b = LeaseStore(store_db, "a", ttl=30), LeaseStore(store_db, "b", ttl=30)
    x, y, z = [await a.take(f"server:{n}") for n in "xyz"]
    assert x is not None and y is not None and z is not None
    await a.release(z)
    taken = await b.take("server:z")  # z moved on: a's token for it is dead
    assert taken is not None
    renewed = await a.renew_all([x, y, z])
    assert sorted(renewed) == ["server:x", "server:y"]
    assert renewed["server:x"].token == x.token and renewed["server:x"].expires >= x.expires
    again = await b.renew_all([x, taken])  # x is a's: b renews only its own
    assert list(again) == ["server:z"] and again["server:z"].holder == "b"
    assert await a.renew_all([]) == {}


async def test_an_expired_lease_is_taken_and_its_old_holder_fenced(store_db: Database) -> None:
    a, b = LeaseStore(store_db, "a", ttl=0.3), LeaseStore(store_db, "b", ttl=30)
    held = await a.take("server:main")
    assert held is not None
    async with store_db.begin() as conn:
        assert await a.still_held(conn, held)
    taken = None
    for _ in range(40):  # bounded: the lease is 0.3 s long
        await asyncio.sleep(0.05)
        taken = await b.take("server:main")
        if taken is not None:
            break
    assert taken is not None and taken.token == held.token + 1
    async with store_db.begin() as conn:
        assert not await a.still_held(conn, held)  # a write under the old lease is refused
        assert await b.still_held(conn, taken)
    assert await a.renew(held) is None
    now, live = await b.live()
    assert [lease.holder for lease in live] == ["b"] and now < taken.expires


async def test_processes_racing_for_a_lease_get_it_once(postgres: Any) -> None:
    """Ten processes (each its own Database, its own connections) take one free lease at the
    same moment: exactly one gets it."""
    url = postgres.new_database(template="doom_template")
    dbs = [Database(url) for _ in range(10)]
    stores = [LeaseStore(db, f"p{i}", ttl=30) for i, db in enumerate(dbs)]
    for db in dbs:
        await db.ready()
    got = await asyncio.gather(*(s.take("gateway") for s in stores))
    assert sum(lease is not None for lease in got) == 1
    for db in dbs:
        await db.close()
