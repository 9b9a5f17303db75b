"""bot.store.audit on both engines: mutations newest first, filtered and paged; event cursors;
concurrent writers lose nothing; what one process wrote another reads."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from bot.store.audit import AuditStore
from bot.store.db import Database
from tests.store.other_process import another_process


async def test_record_and_read_back(store_db: Database) -> None:
    t0 = datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)
    moments = iter([t0, t0.replace(second=6)])
    store = AuditStore(store_db, clock=lambda: next(moments))
    assert store.db is store_db and store.path == store_db.path
    request = {"id": "door", "run": 'say "hi" ✓', "time": 20}
    first = await store.record(412345678901234567, "alice", "main", "schedule", request, "ok")
    second = await store.record(7, "bob", "creative", "cancel", {"id": "door"}, "not found")
    assert second > first
    rows = await store.mutations()
    assert [r.id for r in rows] == [second, first]  # newest first
    a = rows[1]
    assert (a.user_id, a.user_name, a.server, a.action, a.outcome, a.face) == (
        412345678901234567,
        "alice",
        "main",
        "schedule",
        "ok",
        "",
    )
    assert a.request == request
    assert a.time == t0
    assert [r.action for r in await store.mutations(server="creative")] == ["cancel"]
    assert [r.user_name for r in await store.mutations(user_id=412345678901234567)] == ["alice"]
    assert [r.id for r in await store.mutations(action="cancel")] == [second]
    assert [r.id for r in await store.mutations(before_id=second)] == [first]
    assert await store.mutations(server="main", action="cancel") == []
    assert len(await store.mutations(limit=1)) == 1


async def test_cursors_get_set_overwrite(store_db: Database) -> None:
    store = AuditStore(store_db)
    assert await store.get_cursor("rcon:main") is None
    await store.set_cursor("rcon:main", 5)
    await store.set_cursor("rcon:other", 1)
    await store.set_cursor("rcon:main", 17)
    assert await store.get_cursor("rcon:main") == 17
    assert await store.get_cursor("rcon:other") == 1


async def test_another_process_reads_what_one_wrote(store_db: Database) -> None:
    store = AuditStore(store_db)
    await store.record(1, "u", "s", "clear", {}, "removed 3", face="web")
    await store.set_cursor("log:main", {"file": "abc", "offset": 1234, "seq": 9})
    other = AuditStore(another_process(store_db))
    try:
        assert [(m.outcome, m.face) for m in await other.mutations()] == [("removed 3", "web")]
        assert await other.get_cursor("log:main") == {"file": "abc", "offset": 1234, "seq": 9}
    finally:
        await other.close()


async def test_concurrent_writers_lose_nothing(store_db: Database) -> None:
    store = AuditStore(store_db)
    other = AuditStore(another_process(store_db))
    try:
        writers = (store, other)
        ids = await asyncio.gather(
            *(
                writers[i % 2].record(i, f"u{i}", "main", "schedule", {"n": i}, "ok")
                for i in range(60)
            ),
            *(store.set_cursor(f"k{i % 3}", i) for i in range(30)),
        )
        assert len(set(ids[:60])) == 60
        rows = await store.mutations(limit=100)
        assert sorted(r.request["n"] for r in rows) == list(range(60))
        for k in range(3):
            assert await store.get_cursor(f"k{k}") in range(k, 30, 3)
    finally:
        await other.close()
