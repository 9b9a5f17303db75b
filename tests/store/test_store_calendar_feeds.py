"""bot.store.calendar_feeds on both engines: one feed per scope, a renewal ends the old secret."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.store.calendar_feeds import ALL, FeedStore
from bot.store.db import Database

NOW = datetime(2026, 12, 7, 10, 0, tzinfo=UTC)


async def test_a_renewed_feed_answers_only_its_new_secret(store_db: Database) -> None:
    store = FeedStore(store_db)
    assert await store.get(ALL) is None
    await store.put(ALL, "first", 412345678901234567, "admin", NOW)
    assert await store.scope_of("first") == ALL
    feed = await store.put(ALL, "second", 7, "other", NOW.replace(hour=11))
    assert await store.scope_of("first") is None
    assert await store.scope_of("second") == ALL
    assert await store.get(ALL) == feed
    assert (await store.get(ALL)).created_by_id == 7  # type: ignore[union-attr]


async def test_scopes_are_apart_and_a_discord_id_keeps_its_64_bits(store_db: Database) -> None:
    store = FeedStore(store_db)
    await store.put("main", "m", 412345678901234567, "admin", NOW)
    await store.put("lobby", "l", 1, "admin", NOW)
    assert await store.scope_of("m") == "main"
    assert await store.scope_of("l") == "lobby"
    feed = await store.get("main")
    assert feed is not None and feed.created_by_id == 412345678901234567
    assert feed.created_at == NOW
