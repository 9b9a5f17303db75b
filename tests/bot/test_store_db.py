"""bot.store.db: one schema on SQLite and PostgreSQL, made or upgraded once, under a lock."""

from __future__ import annotations

import asyncio
import shutil
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import insert, inspect, select, text
from sqlalchemy.exc import IntegrityError

from bot.store.db import (
    DB_FILE,
    LEGACY_DB_FILE,
    MIGRATIONS,
    Database,
    StoreUnavailable,
    head_revision,
    open_in,
)
from bot.store.legacy import LEGACY_STEPS
from bot.store.tables import metadata, schedule_runs

LEGACY_FILE = Path(__file__).resolve().parents[1] / "store" / "data" / "bot-2026-12.sqlite3"


async def _tables(db: Database) -> set[str]:
    async with db.connect() as conn:
        return set(await conn.run_sync(lambda c: inspect(c).get_table_names()))


async def _revision(db: Database) -> list[str]:
    async with db.connect() as conn:
        return list((await conn.execute(text("SELECT version_num FROM alembic_version"))).scalars())


async def test_a_fresh_database_has_every_table_at_the_newest_revision(
    store_db: Database,
) -> None:
    assert set(metadata.tables) <= await _tables(store_db)
    assert await _revision(store_db) == ["0007"]


def test_the_head_read_from_the_files_names_is_alembics_head() -> None:
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    assert head_revision() == ScriptDirectory.from_config(config).get_current_head()


def test_a_database_at_the_head_starts_without_alembic(tmp_path: Path) -> None:
    """A start on a database already at the newest revision imports no Alembic; one a
    revision behind is upgraded by it (told apart by the version row, nothing else)."""
    probe = (
        "import asyncio, sys\n"
        "from pathlib import Path\n"
        "from bot.store.db import Database\n"
        "async def main():\n"
        f"    db = Database(Path({str(tmp_path / DB_FILE)!r}))\n"
        "    await db.ready()\n"
        "    await db.close()\n"
        "asyncio.run(main())\n"
        "print('alembic' in sys.modules)\n"
    )

    def start() -> str:
        done = subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
        )
        return done.stdout.strip()

    assert start() == "True"  # a new file: made and stamped by Alembic
    assert start() == "False"
    raw = sqlite3.connect(tmp_path / DB_FILE, isolation_level=None)
    raw.execute("UPDATE alembic_version SET version_num = '0003'")
    raw.execute("ALTER TABLE schedules DROP COLUMN dst_repeated")
    raw.execute("ALTER TABLE schedules DROP COLUMN dst_skipped")
    for table in (
        "program_repeat_runs",
        "program_repeats",
        "program_steps",
        "program_runs",
        "trigger_fires",
        "triggers",
        "programs",
    ):
        raw.execute(f"DROP TABLE {table}")
    raw.close()
    assert start() == "True"
    raw = sqlite3.connect(tmp_path / DB_FILE, isolation_level=None)
    assert raw.execute("SELECT version_num FROM alembic_version").fetchall() == [("0007",)]
    columns = {r[1] for r in raw.execute("PRAGMA table_info(schedules)")}
    tables = {r[0] for r in raw.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    raw.close()
    assert {"dst_repeated", "dst_skipped"} <= columns
    assert {"programs", "program_runs", "program_steps"} <= tables


async def test_an_older_bots_file_is_upgraded_in_place_its_rows_kept(tmp_path: Path) -> None:
    """The data dir of the SQLite-only bot (tests/store/data/make_legacy_db.py): every row
    survives, a planned run it recorded twice is kept and marked, and from now on the database
    refuses a second row for one planned run."""
    shutil.copy(LEGACY_FILE, tmp_path / DB_FILE)
    db = open_in(tmp_path)
    async with db.connect() as conn:
        user = (await conn.execute(text("SELECT user_id, face FROM mutations"))).one()
        runs = (
            await conn.execute(text("SELECT id, triggered_by FROM schedule_runs ORDER BY id"))
        ).all()
        early = (await conn.execute(text("SELECT id, type FROM ledger_early ORDER BY id"))).all()
        cursor = (await conn.execute(text("SELECT value FROM cursors"))).scalar_one()
    assert tuple(user) == (412345678901234567, "discord")
    assert [tuple(r) for r in runs] == [(1, None), (2, "duplicate before upgrade"), (3, "mod")]
    assert [tuple(r) for r in early] == [(1, "ran"), (2, "done")]  # the order they were read
    assert cursor == '{"offset": 120}'
    assert await _revision(db) == ["0007"]
    with pytest.raises(IntegrityError):
        async with db.begin() as conn:
            await conn.execute(
                insert(schedule_runs).values(schedule_id=1, due=1700003600.0, outcome="sending")
            )
    await db.close()
    # a second start upgrades nothing and loses nothing
    again = open_in(tmp_path)
    assert await _revision(again) == ["0007"]
    async with again.connect() as conn:
        assert (await conn.execute(text("SELECT count(*) FROM schedule_runs"))).scalar() == 3
    await again.close()


async def test_a_file_of_an_older_bot_with_only_the_audit_log_gets_every_table(
    tmp_path: Path,
) -> None:
    """The first bots kept only the audit log, in ``audit.sqlite3``: renamed, its first script
    only run; it is brought to the whole schema, the audit row kept."""
    legacy = sqlite3.connect(tmp_path / LEGACY_DB_FILE, isolation_level=None)
    legacy.execute("CREATE TABLE schema_versions (component TEXT PRIMARY KEY, version INTEGER)")
    legacy.executescript(LEGACY_STEPS["audit"][0])
    legacy.execute("INSERT INTO schema_versions VALUES ('audit', 1)")
    legacy.execute(
        "INSERT INTO mutations (time, user_id, user_name, server, action, request, outcome)"
        " VALUES ('2025-01-01', 1, 'mod', 'main', 'cancel', '{}', 'ok')"
    )
    legacy.close()
    db = open_in(tmp_path)
    assert db.path == tmp_path / DB_FILE
    assert not (tmp_path / LEGACY_DB_FILE).exists()
    assert set(metadata.tables) <= await _tables(db)
    async with db.connect() as conn:
        row = (await conn.execute(text("SELECT user_name, face FROM mutations"))).one()
    assert tuple(row) == ("mod", "")  # the face column came with the audit log's second script
    await db.close()


async def test_a_schema_newer_than_the_bot_is_refused_with_a_sentence(tmp_path: Path) -> None:
    db = Database(tmp_path / DB_FILE)
    await db.ready()
    async with db.begin() as conn:
        await conn.execute(text("UPDATE alembic_version SET version_num = '0999'"))
    await db.close()
    with pytest.raises(RuntimeError, match="newer than this bot knows"):
        await Database(tmp_path / DB_FILE).ready()


async def test_a_newer_legacy_component_is_refused_with_a_sentence(tmp_path: Path) -> None:
    shutil.copy(LEGACY_FILE, tmp_path / DB_FILE)
    raw = sqlite3.connect(tmp_path / DB_FILE, isolation_level=None)
    raw.execute("UPDATE schema_versions SET version = 9 WHERE component = 'ledger'")
    raw.close()
    with pytest.raises(RuntimeError, match="ledger schema version 9, newer than this bot knows"):
        await Database(tmp_path / DB_FILE).ready()


async def test_processes_starting_together_migrate_once(postgres: Any) -> None:
    """Five bots on one new PostgreSQL database at once: the advisory lock lets one make the
    schema; the others find it made (no error, one revision row)."""
    url = postgres.new_database()
    bots = [Database(url) for _ in range(5)]
    await asyncio.gather(*(db.ready() for db in bots))
    assert await _revision(bots[0]) == ["0007"]
    for db in bots:
        await db.close()


async def test_every_sqlite_commit_is_synced_to_disk(tmp_path: Path) -> None:
    """WAL with synchronous=FULL: the WAL is synced at each commit, so a write the bot has
    acknowledged survives a power failure (NORMAL syncs only at checkpoints and may lose the
    last ones; bench/store_sync.py measures the cost)."""
    db = Database(tmp_path / DB_FILE)
    assert await db.journal_mode() == "wal"
    async with db.connect() as conn:
        assert (await conn.exec_driver_sql("PRAGMA synchronous")).scalar() == 2  # FULL
    await db.close()


async def test_a_database_that_cannot_be_reached_is_said_not_raised_raw() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # nothing listens here once closed
    db = Database(f"postgresql://doom:secret@127.0.0.1:{port}/doom")
    with pytest.raises(StoreUnavailable) as said:
        async with db.connect() as conn:
            await conn.execute(select(1))
    message = str(said.value)
    assert "cannot be reached" in message and f"127.0.0.1:{port}/doom" in message
    assert "secret" not in message  # the password is not said
    await db.close()


def test_an_address_of_another_database_is_refused_with_a_sentence() -> None:
    with pytest.raises(Exception, match="neither SQLite nor PostgreSQL"):
        Database("mysql://root@127.0.0.1/doom")
