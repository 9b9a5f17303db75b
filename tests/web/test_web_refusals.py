"""The API's refusals in the moderator's words: the field named, what it allows, the nearest
valid word; no pydantic phrasing reaches a 400."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest

from bot.testkit.harness import MOD
from tests.web.webclient import Client
from tests.web.webdash import Dash

LIBRARY_WORDS = ("Input should be", "Extra inputs are not permitted", "Expected literal")


@pytest.fixture
async def mod(kept: Dash) -> AsyncIterator[Client]:
    client = await Client(kept).login(MOD)
    yield client
    await client.close()


async def test_api_refusals_name_the_field_and_the_word_meant(mod: Client) -> None:
    headers = {"X-CSRF-Token": await mod.csrf()}
    cases = [
        ({"run": "say x", "time": 5}, "unit", "time needs a unit: one of tick, second"),
        (
            {"run": "say x", "time": 5, "unit": "secnd"},
            "unit",
            "not 'secnd': did you mean second?",
        ),
        ({"run": "say x", "tme": 5, "unit": "tick"}, "tme", "did you mean time?"),
        ({"run": "sya hello", "time": 5, "unit": "tick"}, "run", "did you mean say?"),
        (
            {"run": "give @a diamond_swordd 1", "time": 5, "unit": "tick"},
            "run",
            "Minecraft 1.21.11 has no item minecraft:diamond_swordd: did you mean "
            "minecraft:diamond_sword?",
        ),
    ]
    for payload, field, said in cases:
        status, body = await mod.post("/api/servers/main/tasks", json=payload, headers=headers)
        found = json.loads(body)
        assert status == 400 and found["field"] == field, (payload, found)
        assert said in found["error"], (payload, found)
        assert not any(words in found["error"] for words in LIBRARY_WORDS), found
    status, body = await mod.get("/api/servers/main/lists/queue?page=0")
    found = json.loads(body)
    assert status == 400 and found["field"] == "page", found
    assert "page must be a whole number from 1 to 1,000,000, not '0'." in found["error"], found
    assert not any(words in found["error"] for words in LIBRARY_WORDS), found
