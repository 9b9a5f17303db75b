"""A plugin's own data: the `plugin_data` component of the database.

Each plugin keeps JSON values under keys of its own (`put`, `get`, `delete`, `keys` with a
prefix), in the bot's database, so they are backed up, moved and migrated with it; a plugin
never sees another's. A write is on disk when it returns (the database's own guarantee).
"""

from __future__ import annotations

__all__ = ["MAX_KEY", "MAX_VALUE", "PluginData"]

import json
from typing import Any

from sqlalchemy import delete, func, select

from bot import errors
from bot.i18n import _
from bot.store.db import Database
from bot.store.tables import plugin_data

MAX_KEY = 200  # characters
MAX_VALUE = 1_000_000  # characters of a value's JSON


class PluginData:
    """One plugin's keys and values."""

    def __init__(self, db: Database, plugin: str) -> None:
        self.db = db
        self.plugin = plugin

    @staticmethod
    def _key(key: str) -> str:
        if not 0 < len(key) <= MAX_KEY:
            raise errors.ValidationError(
                _("A plugin's key is 1 to {n} characters.", n=MAX_KEY), field="key"
            )
        return key

    async def put(self, key: str, value: Any) -> None:
        """Keep `value` (anything JSON holds) under `key`, over what was there."""
        text = json.dumps(value, ensure_ascii=False, sort_keys=True)
        if len(text) > MAX_VALUE:
            raise errors.ValidationError(
                _("A plugin's value is at most {n} characters of JSON.", n=MAX_VALUE)
            )
        insert = self.db.insert(plugin_data).values(
            plugin=self.plugin, key=self._key(key), value=text
        )
        upsert = insert.on_conflict_do_update(
            index_elements=[plugin_data.c.plugin, plugin_data.c.key],
            set_={"value": insert.excluded.value},
        )
        async with self.db.begin() as conn:
            await conn.execute(upsert)

    async def get(self, key: str, default: Any = None) -> Any:
        query = select(plugin_data.c.value).where(self._this(key))
        async with self.db.connect() as conn:
            value = (await conn.execute(query)).scalar_one_or_none()
        return default if value is None else json.loads(value)

    async def delete(self, key: str) -> bool:
        """Forget `key`; False when there was nothing under it."""
        query = delete(plugin_data).where(self._this(key)).returning(plugin_data.c.key)
        async with self.db.begin() as conn:
            return (await conn.execute(query)).first() is not None

    async def keys(self, prefix: str = "") -> list[str]:
        """The keys starting with `prefix`, in order."""
        k = plugin_data.c.key
        # substr, not LIKE: SQLite's LIKE ignores case, and a prefix may hold % or _
        query = (
            select(k)
            .where(plugin_data.c.plugin == self.plugin)
            .where(func.substr(k, 1, len(prefix)) == prefix)
            .order_by(k)
        )
        async with self.db.connect() as conn:
            found: list[str] = list((await conn.execute(query)).scalars())
        return found

    def _this(self, key: str) -> Any:
        return (plugin_data.c.plugin == self.plugin) & (plugin_data.c.key == self._key(key))
