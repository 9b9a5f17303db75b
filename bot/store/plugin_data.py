"""A plugin's own data: the `plugin_data` component of the database.

Each plugin keeps JSON values under keys of its own (`put`, `get`, `delete`, `keys` with a
prefix), in the bot's database, so they are backed up, moved and migrated with it; a plugin
never sees another's. A write is on disk when it returns (the database's own guarantee).
"""

from __future__ import annotations

__all__ = ["MAX_KEY", "MAX_VALUE", "PluginData"]

import json
import sqlite3
from typing import Any

from bot import errors
from bot.i18n import _
from bot.store.db import Database

MAX_KEY = 200  # characters
MAX_VALUE = 1_000_000  # characters of a value's JSON

_MIGRATIONS = [
    """
CREATE TABLE plugin_data (
    plugin TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,  -- JSON
    PRIMARY KEY (plugin, key)
);
""",
]


class PluginData:
    """One plugin's keys and values."""

    def __init__(self, db: Database, plugin: str) -> None:
        self.db = db
        self.plugin = plugin
        self._migrated = False

    async def _migrate(self) -> None:
        if not self._migrated:
            await self.db.migrate("plugin_data", _MIGRATIONS)
            self._migrated = True

    @staticmethod
    def _key(key: str) -> str:
        if not 0 < len(key) <= MAX_KEY:
            raise errors.ValidationError(
                _("A plugin's key is 1 to {n} characters.", n=MAX_KEY), field="key"
            )
        return key

    async def put(self, key: str, value: Any) -> None:
        """Keep `value` (anything JSON holds) under `key`, over what was there."""
        await self._migrate()
        text = json.dumps(value, ensure_ascii=False, sort_keys=True)
        if len(text) > MAX_VALUE:
            raise errors.ValidationError(
                _("A plugin's value is at most {n} characters of JSON.", n=MAX_VALUE)
            )
        name = self._key(key)
        await self.db.run(
            lambda db: db.execute(
                "INSERT INTO plugin_data (plugin, key, value) VALUES (?, ?, ?)"
                " ON CONFLICT(plugin, key) DO UPDATE SET value = excluded.value",
                (self.plugin, name, text),
            )
        )

    async def get(self, key: str, default: Any = None) -> Any:
        await self._migrate()
        name = self._key(key)
        row = await self.db.run(
            lambda db: db.execute(
                "SELECT value FROM plugin_data WHERE plugin = ? AND key = ?", (self.plugin, name)
            ).fetchone()
        )
        return default if row is None else json.loads(row[0])

    async def delete(self, key: str) -> bool:
        """Forget `key`; False when there was nothing under it."""
        await self._migrate()
        name = self._key(key)
        cursor = await self.db.run(
            lambda db: db.execute(
                "DELETE FROM plugin_data WHERE plugin = ? AND key = ?", (self.plugin, name)
            )
        )
        return bool(cursor.rowcount)

    async def keys(self, prefix: str = "") -> list[str]:
        """The keys starting with `prefix`, in order."""
        await self._migrate()

        def work(db: sqlite3.Connection) -> list[str]:
            rows = db.execute(
                "SELECT key FROM plugin_data WHERE plugin = ? AND substr(key, 1, ?) = ?"
                " ORDER BY key",
                (self.plugin, len(prefix), prefix),
            ).fetchall()
            return [str(r[0]) for r in rows]

        return await self.db.run(work)
