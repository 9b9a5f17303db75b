"""bot.store.web_sessions and bot.store.rate_limits on both engines: one signing key however
many processes start at once; a session seen by every process, ended in all by one, gone when
expired; a link spent once among processes; rate limits counted by two processes at once."""

from __future__ import annotations

import asyncio

from bot.store.db import Database
from bot.store.rate_limits import RateLimitStore
from bot.store.web_sessions import SessionRow, WebSessionStore
from tests.store.other_process import another_process

T0 = 1_800_000_000.0


async def test_processes_starting_at_once_share_one_signing_key(store_db: Database) -> None:
    others = [another_process(store_db) for _ in range(3)]
    try:
        stores = [WebSessionStore(db) for db in (store_db, *others)]
        keys = await asyncio.gather(*(s.signing_key(T0) for s in stores))
        assert len(set(keys)) == 1 and len(keys[0]) == 32
        assert await stores[0].signing_key(T0 + 60) == keys[0]  # kept, not made again
    finally:
        for db in others:
            await db.close()


async def test_a_session_is_seen_and_ended_by_every_process(store_db: Database) -> None:
    one = WebSessionStore(store_db)
    other = WebSessionStore(another_process(store_db))
    try:
        await one.open(SessionRow("sid-a", 7, 1, "Ada", T0 + 100, "c-a", rank=2), T0)
        found = await other.get("sid-a", T0)
        assert found is not None
        assert (found.user_id, found.guild_id, found.name, found.rank, found.csrf) == (
            7, 1, "Ada", 2, "c-a",
        )  # fmt: skip
        await other.seen("sid-a", "Ada L.", 1, T0 + 5)
        found = await one.get("sid-a", T0 + 6)
        assert found is not None and (found.name, found.seen_rank, found.seen_at) == (
            "Ada L.", 1, T0 + 5,
        )  # fmt: skip
        await other.end("sid-a")
        assert await one.get("sid-a", T0) is None
    finally:
        await other.db.close()


async def test_only_the_id_s_digest_is_kept(store_db: Database) -> None:
    store = WebSessionStore(store_db)
    await store.open(SessionRow("the-secret-id", 7, 1, "Ada", T0 + 100, "c"), T0)
    async with store_db.connect() as conn:
        rows = (await conn.exec_driver_sql("SELECT sid_sha256 FROM web_sessions")).all()
    assert len(rows) == 1 and "the-secret-id" not in rows[0][0] and len(rows[0][0]) == 64


async def test_expired_sessions_are_gone_and_pruned(store_db: Database) -> None:
    store = WebSessionStore(store_db)
    await store.open(SessionRow("old", 7, 1, "Ada", T0 + 10, "c"), T0)
    await store.open(SessionRow("older", 8, 1, "Bo", T0 + 5, "c"), T0)
    assert await store.get("old", T0 + 9.9) is not None
    assert await store.get("old", T0 + 10) is None  # expired: read as gone, and removed
    await store.open(SessionRow("new", 9, 1, "Cy", T0 + 100, "c"), T0 + 20)  # sweeps "older"
    async with store_db.connect() as conn:
        left = (await conn.exec_driver_sql("SELECT user_id FROM web_sessions")).scalars().all()
    assert list(left) == [9]


async def test_flashes_wait_for_the_next_page_in_any_process(store_db: Database) -> None:
    one = WebSessionStore(store_db)
    other = WebSessionStore(another_process(store_db))
    try:
        await one.open(SessionRow("s", 7, 1, "Ada", T0 + 100, "c"), T0)
        await asyncio.gather(
            one.flash("s", "ok", "first"), other.flash("s", "error", "second")
        )  # both kept, though written at once by two processes
        assert sorted(await other.take_flashes("s")) == [("error", "second"), ("ok", "first")]
        assert await one.take_flashes("s") == []
        assert await one.flash("gone", "ok", "x") is False
    finally:
        await other.db.close()


async def test_a_link_is_spent_once_among_processes(store_db: Database) -> None:
    one = WebSessionStore(store_db)
    other = WebSessionStore(another_process(store_db))
    try:
        for i in range(10):
            nonce = f"n{i}"
            assert not await other.link_spent(nonce)
            both = await asyncio.gather(
                one.spend_link(nonce, T0, T0 + 300), other.spend_link(nonce, T0, T0 + 300)
            )
            assert sorted(both) == [False, True]
            assert await one.link_spent(nonce) and await other.link_spent(nonce)
        # kept while the link could still be shown, then swept
        await one.spend_link("later", T0 + 300, T0 + 600)
        assert not await one.link_spent("n0")
    finally:
        await other.db.close()


async def test_rate_limits_count_the_requests_of_two_processes_at_once(
    store_db: Database,
) -> None:
    one = RateLimitStore(store_db)
    other = RateLimitStore(another_process(store_db))
    try:
        assert await one.tat("k") is None
        # 20 requests at once, half through each process, each 3 s of the limit's budget
        await asyncio.gather(*(s.count("k", T0, 3.0) for _ in range(10) for s in (one, other)))
        assert await other.tat("k") == T0 + 60.0  # none lost to a race
        # later than the TAT: counting starts again from now
        await one.count("k", T0 + 100, 3.0)
        assert await one.tat("k") == T0 + 103.0
        await one.put("j", T0 + 5)
        assert await one.prune(T0 + 50) == 1  # "j" has passed, "k" has not
        assert await one.tat("j") is None and await one.tat("k") == T0 + 103.0
    finally:
        await other.db.close()
