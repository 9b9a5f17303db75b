"""The bot's one database, shared by every store: SQLite in the data dir, or PostgreSQL.

``DOOM_DATABASE_URL`` unset: ``<data dir>/bot.sqlite3``, nothing to set up (one process owns a
data dir: bot.datadir_lock). ``DOOM_DATABASE_URL=postgresql://user:pass@host/db``: every table
on PostgreSQL, where several bot processes share the work (bot.store.leases). The stores build
their queries with SQLAlchemy Core from :mod:`bot.store.tables`, so one query runs on both.

The schema is made or moved forward once, on first use, under a lock (PostgreSQL: an advisory
lock, so two processes starting together migrate once; SQLite: the write lock): a fresh
database is created from the tables and stamped with the newest Alembic revision; a database
of an older bot is brought to the last of its own numbered scripts (bot.store.legacy) and then
moved on by the migrations in ``bot/store/migrations``.

SQLite: WAL, so readers never block the writer; ``synchronous=FULL``, so a write the bot
acknowledged survives a power failure; each transaction takes the write lock at its start
(``BEGIN IMMEDIATE``), so two writers wait for each other instead of failing half-way, and a
process uses one connection at a time (the stores never hold one across another's call).
"""

from __future__ import annotations

__all__ = [
    "DB_FILE",
    "LEGACY_DB_FILE",
    "Database",
    "StoreUnavailable",
    "greatest",
    "least",
    "open_database",
    "open_in",
    "settings_database",
]

import asyncio
import functools
import logging
import sqlite3
import weakref
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import event, inspect, text
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.pool import StaticPool
from sqlalchemy.sql.functions import GenericFunction

from bot.errors import BotError
from bot.i18n import _
from bot.store.legacy import LEGACY_STEPS
from bot.store.tables import metadata

if TYPE_CHECKING:
    from sqlalchemy import Table
    from sqlalchemy.engine import URL

    from bot.config import Settings

log = logging.getLogger(__name__)


DB_FILE = "bot.sqlite3"
# a data dir's database under the name of its first table, renamed to DB_FILE on first use
LEGACY_DB_FILE = "audit.sqlite3"
# the key of PostgreSQL's advisory lock held while migrating (any number unique to this bot)
MIGRATION_LOCK = 0x600D5C4E
MIGRATIONS = Path(__file__).resolve().parent / "migrations"
LEGACY_REVISION = "0001"  # the schema the last SQLite-only bot left (bot.store.legacy)
CLOSE_WAIT = 5.0  # seconds a close waits for the connections to end


class StoreUnavailable(BotError):
    """The database cannot be reached (PostgreSQL down, its connection cut): said, not raised
    past a face."""


# SQLSTATE classes that say PostgreSQL cannot be used now, whatever was asked: a connection
# failure (08), a login refused (28: the role may not log in, a wrong password), the server
# shutting down or starting (57P) and too many connections (53300). The driver reports them
# as a plain DBAPIError, which would otherwise pass as a fault of the statement.
_UNREACHABLE_STATES = ("08", "28", "57P", "53300")


def _cannot_be_used(exc: DBAPIError) -> bool:
    code = getattr(exc.orig, "sqlstate", None) or getattr(exc.orig, "pgcode", None)
    return exc.connection_invalidated or (
        isinstance(code, str) and code.startswith(_UNREACHABLE_STATES)
    )


def database_url(where: Path | str) -> URL:
    """The SQLAlchemy URL of a path (an SQLite file) or of a URL as a user writes it
    (``postgresql://``, ``postgres://``, ``sqlite:///``), with the asyncio driver of each."""
    text_ = str(where)
    if "://" not in text_:
        path = text_ if text_ == ":memory:" else str(Path(text_).resolve())
        return make_url(f"sqlite+aiosqlite:///{path}")
    url = make_url(text_.replace("postgres://", "postgresql://", 1))
    if url.get_backend_name() == "postgresql":
        return url.set(drivername="postgresql+asyncpg")
    if url.get_backend_name() == "sqlite":
        return url.set(drivername="sqlite+aiosqlite")
    raise BotError(
        _(
            "The database address {url} is neither SQLite nor PostgreSQL: set DOOM_DATABASE_URL"
            " to postgresql://user:password@host/database, or leave it unset for the data dir's"
            " SQLite file.",
            url=url.render_as_string(hide_password=True),
        )
    )


class Database:
    """One database: an SQLite file (a path) or a URL. Stores take it and use :meth:`begin`
    (a transaction) or :meth:`connect` (reads); the schema is ready before either returns."""

    def __init__(self, where: Path | str, **engine_options: Any) -> None:
        self.url = database_url(where)
        self.dialect = self.url.get_backend_name()  # 'sqlite' or 'postgresql'
        self.path: Path | None = None
        if self.dialect == "sqlite" and self.url.database not in (None, "", ":memory:"):
            self.path = Path(str(self.url.database))
        self._engine_options = engine_options
        self._engine: AsyncEngine | None = None
        self._ready = False
        self._ready_lock = asyncio.Lock()
        # SQLite: the one connection is used by one transaction at a time; two tasks of the
        # loop beginning at once would interleave on it (a second BEGIN hangs)
        self._one_at_a_time = asyncio.Lock()
        # the stdlib connection of stores not yet on the engine (SQLite only; see run())

    def __repr__(self) -> str:
        return f"Database({self.url.render_as_string(hide_password=True)!r})"

    @property
    def is_sqlite(self) -> bool:
        return self.dialect == "sqlite"

    @property
    def engine(self) -> AsyncEngine:
        if self._engine is None:
            self._engine = self._make_engine()
        return self._engine

    def _make_engine(self) -> AsyncEngine:
        if not self.is_sqlite:
            options: dict[str, Any] = {
                "pool_pre_ping": True,  # a connection the server dropped is replaced, not used
                "pool_size": 5,
                "max_overflow": 10,
                "pool_timeout": 10,
                "connect_args": {"timeout": 5, "command_timeout": 30},
            }
            options.update(self._engine_options)
            return create_async_engine(self.url, **options)
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        # one connection: SQLite has one writer anyway, and BEGIN IMMEDIATE on a shared
        # connection would deadlock the pool's second user against the first
        engine = create_async_engine(self.url, poolclass=StaticPool, **self._engine_options)

        @event.listens_for(engine.sync_engine, "connect")
        def _on_connect(dbapi_connection: Any, _record: Any) -> None:
            dbapi_connection.isolation_level = None  # the begin hook below says when
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            # FULL: a write the bot acknowledged (a schedule, a ledger entry) survives a power
            # failure; NORMAL in WAL mode may lose the last ones (bench/store_sync.py: the cost)
            cursor.execute("PRAGMA synchronous=FULL")
            cursor.execute("PRAGMA busy_timeout=5000")
            cursor.close()

        @event.listens_for(engine.sync_engine, "begin")
        def _on_begin(conn: Connection) -> None:
            conn.exec_driver_sql("BEGIN IMMEDIATE")

        return engine

    # -- schema -------------------------------------------------------------------------------

    async def ready(self) -> None:
        """Make or upgrade the schema, once per process (and once among processes)."""
        if self._ready:
            return
        async with self._ready_lock:
            if self._ready:
                return
            try:
                if self.is_sqlite and self.path is not None:
                    await asyncio.to_thread(_bring_legacy_up, self.path)
                async with _migrating(), self.engine.connect() as conn:
                    if not self.is_sqlite:
                        await conn.execute(
                            text("SELECT pg_advisory_lock(:k)"), {"k": MIGRATION_LOCK}
                        )
                        await conn.commit()  # the lock is the session's: it outlives this
                    try:
                        async with conn.begin():
                            await conn.run_sync(_migrate)
                    finally:
                        if not self.is_sqlite:
                            await conn.execute(
                                text("SELECT pg_advisory_unlock(:k)"), {"k": MIGRATION_LOCK}
                            )
                            await conn.commit()
            except (OSError, OperationalError, InterfaceError) as exc:
                raise self.unavailable(exc) from exc
            except DBAPIError as exc:
                if _cannot_be_used(exc):
                    raise self.unavailable(exc) from exc
                raise
            self._ready = True

    def unavailable(self, exc: BaseException) -> StoreUnavailable:
        where = self.url.render_as_string(hide_password=True)
        return StoreUnavailable(
            _(
                "The bot's database ({where}) cannot be reached: {error}. Nothing was changed;"
                " try again when it is back.",
                where=where,
                error=_short(exc),
            )
        )

    # -- use ----------------------------------------------------------------------------------

    @asynccontextmanager
    async def begin(self) -> AsyncIterator[AsyncConnection]:
        """A connection in one transaction, committed when the block ends (rolled back if it
        raises). A database that cannot be reached raises :class:`StoreUnavailable`."""
        await self.ready()
        try:
            if self.is_sqlite:
                async with self._one_at_a_time, self.engine.begin() as conn:
                    yield conn
            else:
                async with self.engine.begin() as conn:
                    yield conn
        except (OSError, OperationalError, InterfaceError) as exc:
            raise self.unavailable(exc) from exc
        except DBAPIError as exc:
            if _cannot_be_used(exc):
                raise self.unavailable(exc) from exc
            raise

    @asynccontextmanager
    async def connect(self) -> AsyncIterator[AsyncConnection]:
        """A connection for reads (a transaction too: SQLite reads see one snapshot)."""
        async with self.begin() as conn:
            yield conn

    def insert(self, table: Table) -> Any:
        """An INSERT with this engine's ``on_conflict_do_update`` / ``on_conflict_do_nothing``
        (SQLite and PostgreSQL spell the upsert alike; SQLAlchemy has one construct per
        dialect)."""
        if self.is_sqlite:
            from sqlalchemy.dialects.sqlite import insert as sqlite_insert

            return sqlite_insert(table)
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        return pg_insert(table)

    async def journal_mode(self) -> str:
        async with self.connect() as conn:
            return str((await conn.exec_driver_sql("PRAGMA journal_mode")).scalar_one())

    async def close(self) -> None:
        engine, self._engine = self._engine, None
        self._ready = False
        if engine is None:
            return
        try:
            await asyncio.wait_for(engine.dispose(), CLOSE_WAIT)
        except TimeoutError:
            # seen under load with aiosqlite: a connection whose worker thread went away leaves
            # its close waiting for ever; a stopping bot must not wait with it
            log.warning("the database connections did not close within %g s", CLOSE_WAIT)


# alembic holds the migration it runs in a module global (alembic.context): two databases of
# one process (the audit's and a test's second file) migrating at once would clobber it
_MIGRATING: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = (
    weakref.WeakKeyDictionary()
)


def _migrating() -> asyncio.Lock:
    """The process's one migration at a time (an asyncio lock belongs to one loop)."""
    loop = asyncio.get_running_loop()
    lock = _MIGRATING.get(loop)
    if lock is None:
        lock = _MIGRATING[loop] = asyncio.Lock()
    return lock


def _short(exc: BaseException) -> str:
    root: BaseException = exc
    while root.__cause__ is not None:
        root = root.__cause__
    orig = getattr(exc, "orig", None)
    said = str(orig if orig is not None else root).strip().splitlines()
    return said[0] if said else type(root).__name__


def _bring_legacy_up(path: Path) -> None:
    """An SQLite file of the bot before Alembic: run the legacy scripts it has not run, so it
    has the whole legacy schema that the revision ``0001`` stands for."""
    if not path.exists():
        return
    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.execute("PRAGMA busy_timeout=5000")
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if "schema_versions" not in tables or "alembic_version" in tables:
            return
        done = dict(db.execute("SELECT component, version FROM schema_versions").fetchall())
        for component, steps in LEGACY_STEPS.items():
            have = int(done.get(component, 0))
            if have > len(steps):
                raise RuntimeError(
                    f"The database {path} has {component} schema version {have}, newer than"
                    f" this bot knows ({len(steps)}): run the newer bot or restore a backup."
                )
            for version, script in enumerate(steps[have:], start=have + 1):
                # executescript commits first; BEGIN ... COMMIT makes the step and its version
                # bump one transaction, so a crash mid-migration leaves the old version whole
                db.executescript(
                    "BEGIN IMMEDIATE;\n"
                    + script
                    + "\nINSERT INTO schema_versions (component, version)"
                    + f" VALUES ('{component}', {version})"
                    + " ON CONFLICT(component) DO UPDATE SET version = excluded.version;\nCOMMIT;"
                )
    finally:
        db.close()


def _alembic_config(conn: Connection) -> Any:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = conn
    return config


@functools.cache
def head_revision() -> str:
    """The newest migration's revision, read from the files' names: each is `NNNN_<what>.py`
    with the revision "NNNN" (tests/bot/test_store_db.py holds Alembic's head to it)."""
    return max(f.name[:4] for f in (MIGRATIONS / "versions").glob("[0-9][0-9][0-9][0-9]_*.py"))


def _migrate(conn: Connection) -> None:
    """In the migration lock's transaction: create, or upgrade from where the database is."""
    tables = set(inspect(conn).get_table_names())
    if "alembic_version" in tables:
        at: list[str] = list(
            conn.execute(text("SELECT version_num FROM alembic_version")).scalars()
        )
        if at == [head_revision()]:
            return  # nothing to do, and no Alembic to import: 0.3 s of CPU each start
    from alembic import command
    from alembic.util.exc import CommandError

    config = _alembic_config(conn)
    try:
        if "alembic_version" in tables:
            command.upgrade(config, "head")
        elif "schema_versions" in tables:  # an older bot's SQLite file, its scripts all run
            command.stamp(config, LEGACY_REVISION)
            command.upgrade(config, "head")
        else:
            metadata.create_all(conn)
            command.stamp(config, "head")
    except CommandError as exc:
        raise RuntimeError(
            f"The database's schema is newer than this bot knows ({exc}): run the newer bot or"
            " restore a backup."
        ) from exc


def open_in(data_dir: Path) -> Database:
    """The SQLite database of a data dir; a legacy ``audit.sqlite3`` is renamed (with its WAL
    files) on first use, so an upgrade keeps the audit log and cursors."""
    path = data_dir / DB_FILE
    legacy = data_dir / LEGACY_DB_FILE
    if not path.exists() and legacy.exists():
        for suffix in ("", "-wal", "-shm"):
            old = legacy.with_name(legacy.name + suffix)
            if old.exists():
                old.rename(path.with_name(path.name + suffix))
    return Database(path)


def open_database(data_dir: Path, url: str | None) -> Database:
    """The bot's database: PostgreSQL (or another SQLite file) when `url` is set, else the data
    dir's own file."""
    return open_in(data_dir) if not url else Database(url)


def settings_database(settings: Settings) -> Database:
    """The database the settings name (``DOOM_DATABASE_URL``, else the data dir's file)."""
    url = settings.database_url.get_secret_value() if settings.database_url else None
    return open_database(settings.data_dir, url)


class greatest(GenericFunction[Any]):
    """The larger of its arguments: PostgreSQL's ``greatest``, SQLite's scalar ``max``."""

    name = "greatest"
    inherit_cache = True


@compiles(greatest, "sqlite")
def _greatest_sqlite(element: greatest, compiler: Any, **kw: Any) -> str:
    return f"max({compiler.process(element.clauses, **kw)})"


class least(GenericFunction[Any]):
    """The smaller of its arguments: PostgreSQL's ``least``, SQLite's scalar ``min``."""

    name = "least"
    inherit_cache = True


@compiles(least, "sqlite")
def _least_sqlite(element: least, compiler: Any, **kw: Any) -> str:
    return f"min({compiler.process(element.clauses, **kw)})"
