"""bot.store.plugin_data on both engines: a plugin's keys are its own, listed by prefix (exactly,
case and wildcards included), overwritten and deleted; values are any JSON."""

from __future__ import annotations

import pytest

from bot import errors
from bot.store.db import Database
from bot.store.plugin_data import MAX_KEY, PluginData


async def test_keys_by_exact_prefix_and_values_of_any_json(store_db: Database) -> None:
    votes, notes = PluginData(store_db, "vote"), PluginData(store_db, "notes")
    for key in ("poll:1", "poll:2", "Poll:3", "poll%x", "poll_y", "pollz", "p"):
        await votes.put(key, {"k": key, "n": [1, 2.5, None, True], "ü": "✓"})
    await notes.put("poll:1", "notes'")
    assert await votes.keys("poll:") == ["poll:1", "poll:2"]
    assert await votes.keys("poll%") == ["poll%x"]
    assert await votes.keys("poll_") == ["poll_y"]
    assert await votes.keys() == sorted(
        ["poll:1", "poll:2", "Poll:3", "poll%x", "poll_y", "pollz", "p"]
    )
    assert await votes.get("Poll:3") == {"k": "Poll:3", "n": [1, 2.5, None, True], "ü": "✓"}
    assert await notes.keys() == ["poll:1"] and await notes.get("poll:1") == "notes'"
    await votes.put("poll:1", 2)
    assert await votes.get("poll:1") == 2 and await notes.get("poll:1") == "notes'"
    assert await votes.delete("poll:1") and not await votes.delete("poll:1")
    assert await votes.get("poll:1", "gone") == "gone"
    assert await notes.get("poll:1") == "notes'"


async def test_a_bad_key_is_refused_and_writes_nothing(store_db: Database) -> None:
    data = PluginData(store_db, "vote")
    for bad in ("", "k" * (MAX_KEY + 1)):
        with pytest.raises(errors.ValidationError):
            await data.put(bad, 1)
        with pytest.raises(errors.ValidationError):
            await data.get(bad)
    await data.put("k" * MAX_KEY, 1)
    assert await data.keys() == ["k" * MAX_KEY]
