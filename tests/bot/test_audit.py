"""bot.store.audit.AuditStore on its own SQLite file (WAL), and an older log gaining a column;
the store on both engines: tests/store/test_store_audit.py."""

from __future__ import annotations

import sqlite3
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
