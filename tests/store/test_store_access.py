"""bot.store.access on both engines: a login code lets in once, only while it is good, even
when two processes press at once; tokens are kept hashed, their last use written once a minute
whichever process sees them, and stop when revoked."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from bot.store.access import LOGIN_TTL, AccessStore
from bot.store.db import Database
from tests.store.other_process import another_process

T0 = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)


async def test_a_login_code_works_once_and_only_while_it_is_good(store_db: Database) -> None:
    store = AccessStore(store_db)
    code = await store.new_login("Ada", "admin", T0)
    # opening the link (a preview may) spends nothing
    assert await store.login(code, T0, spend=False) is not None
    grant = await store.login(code, T0, spend=False)
    assert grant is not None and (grant.name, grant.rank) == ("Ada", "admin")
    late = T0 + timedelta(seconds=LOGIN_TTL)
    assert await store.login(code, late, spend=True) is None  # expired
    code = await store.new_login("Ada", "admin", T0)
    # two presses at once: one session, not two
    both = await asyncio.gather(*(store.login(code, T0, spend=True) for _ in range(2)))
    assert [g is not None for g in both].count(True) == 1
    assert await store.login(code, T0, spend=False) is None
    assert await store.login("not-a-code", T0, spend=False) is None


async def test_two_processes_spending_one_code_let_in_one(store_db: Database) -> None:
    one = AccessStore(store_db)
    other = AccessStore(another_process(store_db))
    try:
        codes = [await one.new_login(f"u{i}", "moderator", T0) for i in range(20)]
        for code in codes:
            both = await asyncio.gather(
                one.login(code, T0, spend=True), other.login(code, T0, spend=True)
            )
            assert [g is not None for g in both].count(True) == 1, both
        assert [await other.login(c, T0, spend=False) for c in codes] == [None] * 20
    finally:
        await other.db.close()


async def test_a_new_login_sweeps_only_expired_codes(store_db: Database) -> None:
    store = AccessStore(store_db)
    old = await store.new_login("Ada", "admin", T0)
    fresh = await store.new_login("Bo", "moderator", T0 + timedelta(seconds=LOGIN_TTL - 1))
    await store.new_login("Cy", "admin", T0 + timedelta(seconds=LOGIN_TTL))  # sweeps `old`
    assert await store.login(old, T0, spend=False) is None
    assert await store.login(fresh, T0 + timedelta(seconds=LOGIN_TTL), spend=False) is not None


async def test_a_token_is_kept_hashed_and_stops_when_revoked(store_db: Database) -> None:
    store = AccessStore(store_db)
    secret = await store.new_token("ci", "moderator", T0)
    assert secret is not None and secret.startswith("doom_")
    assert await store.new_token("ci", "admin", T0) is None  # the name is taken
    if store_db.path is not None:
        path = store_db.path
        raw = path.read_bytes() + path.with_name(path.name + "-wal").read_bytes()
        assert secret.encode() not in raw  # a copy of the database opens nothing
    grant = await store.token(secret, T0)
    assert grant is not None and (grant.name, grant.rank) == ("ci", "moderator")
    [listed] = await store.tokens()
    assert (listed.name, listed.rank, listed.created_at, listed.last_used_at) == (
        "ci",
        "moderator",
        T0,
        T0,
    )
    await store.token(secret, T0 + timedelta(seconds=30))  # within a minute: not written again
    assert (await store.tokens())[0].last_used_at == T0
    await store.token(secret, T0 + timedelta(seconds=90))
    assert (await store.tokens())[0].last_used_at == T0 + timedelta(seconds=90)
    assert await store.token("doom_" + "x" * 43, T0) is None
    assert await store.token(secret.removeprefix("doom_"), T0) is None
    assert await store.revoke("ci") and not await store.revoke("ci")
    assert await store.token(secret, T0) is None
    assert await store.tokens() == []


async def test_two_processes_using_one_token_write_its_last_use_once(store_db: Database) -> None:
    one = AccessStore(store_db)
    other = AccessStore(another_process(store_db))
    try:
        secret = await one.new_token("ci", "admin", T0)
        assert secret is not None
        assert await other.new_token("ci", "moderator", T0) is None  # taken, in any process
        for minute in range(1, 6):
            now = T0 + timedelta(minutes=minute)
            grants = await asyncio.gather(
                one.token(secret, now), other.token(secret, now + timedelta(seconds=1))
            )
            assert all(g is not None and g.rank == "admin" for g in grants), grants
            used = (await other.tokens())[0].last_used_at
            # one of the two wrote; the other read it, or found it written within a minute
            assert used in (now, now + timedelta(seconds=1)), used
        # a process whose clock is behind never moves the last use back
        await other.token(secret, T0)
        assert (await one.tokens())[0].last_used_at in (
            T0 + timedelta(minutes=5),
            T0 + timedelta(minutes=5, seconds=1),
        )
    finally:
        await other.db.close()
