"""A plugin's own data (bot.api.data_of): JSON values under its keys in the bot's database, kept
across a restart, never another plugin's, a bad key refused with nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot import api
from bot.store.db import Database
from tests.plugins.test_plugin_host import shell


async def test_a_plugins_data_is_its_own_and_outlives_a_restart(tmp_path: Path) -> None:
    ops = shell(tmp_path)
    votes, other = api.data_of(ops, "vote"), api.data_of(ops, "notes")
    await votes.put("poll:1", {"question": "Map?", "ballots": {"7001": "nether"}})
    await votes.put("poll:2", ["a", "b"])
    await votes.put("open", 1)
    await other.put("poll:1", "not the vote's")
    assert await votes.get("poll:1") == {"question": "Map?", "ballots": {"7001": "nether"}}
    assert await votes.keys("poll:") == ["poll:1", "poll:2"]
    assert await other.keys() == ["poll:1"] and await other.get("poll:1") == "not the vote's"
    assert await votes.delete("poll:2") and not await votes.delete("poll:2")
    assert await votes.get("poll:2", "gone") == "gone"
    with pytest.raises(api.ValidationError, match="1 to 200 characters"):
        await votes.put("k" * 201, 1)
    assert await votes.keys() == ["open", "poll:1"]  # the refused write left nothing
    await ops.services.close()

    again = api.PluginData(Database(tmp_path / "db.sqlite3"), "vote")  # the bot started again
    try:
        assert await again.get("poll:1") == {"question": "Map?", "ballots": {"7001": "nether"}}
    finally:
        await again.db.close()
