"""The bot's one SQLite database in the data dir, shared by every store, with versioned schemas.

sqlite3 calls block, so each one runs in a worker thread (asyncio.to_thread); one connection is
shared behind a threading lock, because a sqlite3 connection must not be used by two threads at
once. WAL mode, so readers never block the writer.

Each store owns a *component* of the schema (``audit``, ``schedules``, ...) and passes its ordered
list of migration scripts to :meth:`Database.migrate`; the table ``schema_versions`` records how
many of them ran, so a store's schema moves forward on start-up and never runs a step twice.
A store never edits a migration that has shipped: it appends the next one.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

__all__ = ["DB_FILE", "LEGACY_DB_FILE", "Database", "open_in"]

_T = TypeVar("_T")

DB_FILE = "bot.sqlite3"
# a data dir's database under the name of its first table, renamed to DB_FILE on first use
LEGACY_DB_FILE = "audit.sqlite3"


class Database:
    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None

    def _connect(self) -> sqlite3.Connection:
        if self._db is None:
            if str(self.path) != ":memory:":
                self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            # FULL: a write the bot acknowledged (a schedule, a ledger entry) survives a power
            # failure; NORMAL in WAL mode may lose the last ones (bench/store_sync.py: the cost)
            db.execute("PRAGMA synchronous=FULL")
            db.execute("PRAGMA busy_timeout=5000")
            db.execute(
                "CREATE TABLE IF NOT EXISTS schema_versions"
                " (component TEXT PRIMARY KEY, version INTEGER NOT NULL)"
            )
            self._db = db
        return self._db

    def run_sync(self, work: Callable[[sqlite3.Connection], _T]) -> _T:
        """Run `work` on the connection in this thread (for start-up code outside a loop)."""
        with self._lock:
            return work(self._connect())

    async def run(self, work: Callable[[sqlite3.Connection], _T]) -> _T:
        """Run `work` on the connection in a worker thread, one caller at a time."""
        return await asyncio.to_thread(self.run_sync, work)

    def migrate_sync(self, component: str, steps: Sequence[str]) -> int:
        """Run the scripts of `steps` that have not run yet, each in one transaction with its
        version bump; returns the component's version after."""

        def work(db: sqlite3.Connection) -> int:
            row = db.execute(
                "SELECT version FROM schema_versions WHERE component = ?", (component,)
            ).fetchone()
            done = 0 if row is None else int(row[0])
            if done > len(steps):
                raise RuntimeError(
                    f"The database {self.path} has {component} schema version {done}, newer than"
                    f" this bot knows ({len(steps)}): run the newer bot or restore a backup."
                )
            for version, script in enumerate(steps[done:], start=done + 1):
                # executescript commits first; BEGIN ... COMMIT makes the step and its version
                # bump one transaction, so a crash mid-migration leaves the old version whole.
                db.executescript(
                    "BEGIN;\n"
                    + script
                    + "\nINSERT INTO schema_versions (component, version)"
                    + f" VALUES ('{component}', {version})"
                    + " ON CONFLICT(component) DO UPDATE SET version = excluded.version;\nCOMMIT;"
                )
            return len(steps)

        return self.run_sync(work)

    async def migrate(self, component: str, steps: Sequence[str]) -> int:
        return await asyncio.to_thread(self.migrate_sync, component, steps)

    async def journal_mode(self) -> str:
        row = await self.run(lambda db: db.execute("PRAGMA journal_mode").fetchone())
        return str(row[0])

    async def close(self) -> None:
        def shut() -> None:
            with self._lock:
                if self._db is not None:
                    self._db.close()
                    self._db = None

        await asyncio.to_thread(shut)


def open_in(data_dir: Path) -> Database:
    """The database of a data dir; a legacy ``audit.sqlite3`` is renamed (with its WAL files) on
    first use, so an upgrade keeps the audit log and cursors."""
    path = data_dir / DB_FILE
    legacy = data_dir / LEGACY_DB_FILE
    if not path.exists() and legacy.exists():
        for suffix in ("", "-wal", "-shm"):
            old = legacy.with_name(legacy.name + suffix)
            if old.exists():
                old.rename(path.with_name(path.name + suffix))
    return Database(path)
