"""bot.store.audit.AuditStore: mutations and event cursors in SQLite (WAL), used from asyncio."""

from __future__ import annotations

import asyncio
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from bot.store.audit import AuditStore


async def test_schema_created_on_open_in_wal_mode(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "audit.sqlite3"
    store = await AuditStore.open(path)
    try:
        assert path.exists()
        assert await store.journal_mode() == "wal"
        tables = {
            r[0] for r in sqlite3.connect(path).execute("SELECT name FROM sqlite_master").fetchall()
        }
        assert {"mutations", "cursors"} <= tables
    finally:
        await store.close()


async def test_record_and_read_back(tmp_path: Path) -> None:
    t0 = datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)
    moments = iter([t0, t0.replace(second=6)])
    store = AuditStore(tmp_path / "a.db", clock=lambda: next(moments))
    try:
        first = await store.record(
            42, "alice", "main", "schedule", {"id": "door", "run": 'say "hi" ✓', "time": 20}, "ok"
        )
        second = await store.record(7, "bob", "creative", "cancel", {"id": "door"}, "not found")
        assert second > first
        rows = await store.mutations()
        assert [r.id for r in rows] == [second, first]  # newest first
        a = rows[1]
        assert (a.user_id, a.user_name, a.server, a.action, a.outcome) == (
            42,
            "alice",
            "main",
            "schedule",
            "ok",
        )
        assert a.request == {"id": "door", "run": 'say "hi" ✓', "time": 20}
        assert a.time == datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)
        assert [r.action for r in await store.mutations(server="creative")] == ["cancel"]
        assert [r.user_name for r in await store.mutations(user_id=42)] == ["alice"]
        assert [r.id for r in await store.mutations(before_id=second)] == [first]
        assert len(await store.mutations(limit=1)) == 1
    finally:
        await store.close()


async def test_survives_reopen(tmp_path: Path) -> None:
    path = tmp_path / "a.db"
    store = await AuditStore.open(path)
    await store.record(1, "u", "s", "clear", {}, "removed 3")
    await store.set_cursor("log:main", {"file": "abc", "offset": 1234, "seq": 9})
    await store.close()
    again = await AuditStore.open(path)
    try:
        assert [m.outcome for m in await again.mutations()] == ["removed 3"]
        assert await again.get_cursor("log:main") == {"file": "abc", "offset": 1234, "seq": 9}
    finally:
        await again.close()


async def test_cursors_get_set_overwrite(tmp_path: Path) -> None:
    store = await AuditStore.open(tmp_path / "a.db")
    try:
        assert await store.get_cursor("rcon:main") is None
        await store.set_cursor("rcon:main", 5)
        await store.set_cursor("rcon:other", 1)
        await store.set_cursor("rcon:main", 17)
        assert await store.get_cursor("rcon:main") == 17
        assert await store.get_cursor("rcon:other") == 1
    finally:
        await store.close()


async def test_concurrent_writers_lose_nothing(tmp_path: Path) -> None:
    store = await AuditStore.open(tmp_path / "a.db")
    try:
        ids = await asyncio.gather(
            *(store.record(i, f"user{i}", "main", "schedule", {"n": i}, "ok") for i in range(60)),
            *(store.set_cursor(f"k{i % 3}", i) for i in range(30)),
        )
        record_ids = ids[:60]
        assert len(set(record_ids)) == 60
        rows = await store.mutations(limit=100)
        assert sorted(r.request["n"] for r in rows) == list(range(60))
        for k in range(3):
            assert await store.get_cursor(f"k{k}") in range(k, 30, 3)
    finally:
        await store.close()


async def test_the_face_is_kept_and_an_older_log_gains_the_column(tmp_path: Path) -> None:
    path = tmp_path / "a.db"
    old = sqlite3.connect(path)  # the log as the bot wrote it before faces were recorded
    old.executescript(
        "CREATE TABLE schema_versions (component TEXT PRIMARY KEY, version INTEGER NOT NULL);"
        "CREATE TABLE mutations (id INTEGER PRIMARY KEY AUTOINCREMENT, time TEXT NOT NULL,"
        " user_id INTEGER NOT NULL, user_name TEXT NOT NULL, server TEXT NOT NULL,"
        " action TEXT NOT NULL, request TEXT NOT NULL, outcome TEXT NOT NULL);"
        "INSERT INTO schema_versions VALUES ('audit', 1);"
        "INSERT INTO mutations (time, user_id, user_name, server, action, request, outcome)"
        " VALUES ('2025-01-02T03:04:05+00:00', 1, 'u', 'main', 'clear', '{}', 'removed 3');"
    )
    old.commit()
    old.close()
    store = await AuditStore.open(path)
    try:
        await store.record(2, "w", "main", "cancel", {"id": "x"}, "ok", face="web")
        rows = await store.mutations()
        assert [(r.user_name, r.face) for r in rows] == [("w", "web"), ("u", "")]
    finally:
        await store.close()
