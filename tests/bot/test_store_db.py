"""bot.store.db: one database for every store, schemas moved forward by numbered migrations."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bot.store.audit import AuditStore
from bot.store.db import DB_FILE, LEGACY_DB_FILE, Database, open_in

STEPS = [
    "CREATE TABLE things (id INTEGER PRIMARY KEY, name TEXT NOT NULL);",
    "ALTER TABLE things ADD COLUMN colour TEXT NOT NULL DEFAULT 'red';",
]


def _version(db: Database, component: str) -> int | None:
    row = db.run_sync(
        lambda c: c.execute(
            "SELECT version FROM schema_versions WHERE component = ?", (component,)
        ).fetchone()
    )
    return None if row is None else int(row[0])


async def test_migrations_run_once_in_order_and_resume_from_the_recorded_version(
    tmp_path: Path,
) -> None:
    db = Database(tmp_path / DB_FILE)
    assert await db.migrate("things", STEPS[:1]) == 1
    db.run_sync(lambda c: c.execute("INSERT INTO things (name) VALUES ('a')"))
    # a newer bot brings step 2: only it runs, the row survives
    assert await db.migrate("things", STEPS) == 2
    assert await db.migrate("things", STEPS) == 2  # a third start runs nothing
    rows = db.run_sync(lambda c: c.execute("SELECT name, colour FROM things").fetchall())
    assert rows == [("a", "red")]
    assert _version(db, "things") == 2
    await db.close()


async def test_components_are_versioned_apart(tmp_path: Path) -> None:
    db = Database(tmp_path / DB_FILE)
    await db.migrate("things", STEPS)
    await db.migrate("other", ["CREATE TABLE other (x INTEGER);"])
    assert (_version(db, "things"), _version(db, "other")) == (2, 1)
    await db.close()


async def test_a_failing_step_leaves_the_previous_version_whole(tmp_path: Path) -> None:
    db = Database(tmp_path / DB_FILE)
    await db.migrate("things", STEPS[:1])
    bad = [*STEPS[:1], "CREATE TABLE half (x INTEGER); INSERT INTO nowhere VALUES (1);"]
    with pytest.raises(sqlite3.OperationalError):
        await db.migrate("things", bad)
    db.run_sync(lambda c: c.execute("ROLLBACK") if c.in_transaction else None)
    assert _version(db, "things") == 1
    tables = db.run_sync(
        lambda c: {r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    )
    assert "half" not in tables
    await db.close()


async def test_a_schema_newer_than_the_bot_is_refused_with_a_sentence(tmp_path: Path) -> None:
    db = Database(tmp_path / DB_FILE)
    await db.migrate("things", STEPS)
    with pytest.raises(RuntimeError, match="things schema version 2, newer than this bot knows"):
        await db.migrate("things", STEPS[:1])
    await db.close()


async def test_a_legacy_audit_database_is_kept_on_upgrade(tmp_path: Path) -> None:
    old = AuditStore(tmp_path / LEGACY_DB_FILE)
    await old.record(1, "mod", "main", "cancel", {"id": "x"}, "ok")
    await old.set_cursor("log:main", {"offset": 10})
    await old.close()
    store = AuditStore(open_in(tmp_path))
    assert store.path == tmp_path / DB_FILE
    assert not (tmp_path / LEGACY_DB_FILE).exists()
    [mutation] = await store.mutations()
    assert (mutation.user_name, mutation.action) == ("mod", "cancel")
    assert await store.get_cursor("log:main") == {"offset": 10}
    assert _version(store.db, "audit") == 2  # the schema, then the face column
    await store.close()


async def test_every_commit_is_synced_to_disk(tmp_path: Path) -> None:
    """WAL with synchronous=FULL: the WAL is synced at each commit, so a write the bot has
    acknowledged survives a power failure (NORMAL syncs only at checkpoints and may lose the
    last ones; bench/store_sync.py measures the cost)."""
    db = Database(tmp_path / DB_FILE)
    assert await db.journal_mode() == "wal"
    assert db.run_sync(lambda c: c.execute("PRAGMA synchronous").fetchone()[0]) == 2  # FULL
    await db.close()
