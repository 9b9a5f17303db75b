"""/event at the Discord HTTP edge and through discord.py's gateway parser, on an injected clock."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest
from events_fixture import NOW, EventHarness, event_harness
from harness import ALERT_CHANNEL, MOD, NOBODY


@pytest.fixture
async def ev(tmp_path: Path) -> AsyncIterator[EventHarness]:
    async for h in event_harness(tmp_path):
        yield h


async def test_create_posts_the_discord_event_and_binds_its_tasks(ev: EventHarness) -> None:
    reply = await ev.run("event create", MOD, name="Build Battle", start="in 2h",
                         description="Bring blocks", start_run="say go", end_run="say stop")  # fmt: skip
    assert "Event #1 **Build Battle** made" in reply.text, reply.text
    posts = [s for s in ev.discord.scheduled.requests if s.method == "POST"]
    assert len(posts) == 1
    assert posts[0].path == f"/guilds/{ev.discord.guild_id}/scheduled-events"
    start = NOW + timedelta(hours=2)
    assert posts[0].payload == {
        "name": "Build Battle",
        "description": "Bring blocks",
        "privacy_level": 2,
        "scheduled_start_time": start.isoformat(),
        "scheduled_end_time": (start + timedelta(hours=1)).isoformat(),
        "entity_type": 3,
        "entity_metadata": {"location": "mc.example.org"},
    }
    start_task, end_task = ev.tasks.active()
    assert (start_task.command, start_task.due, start_task.announce) == ("say go", start, (600, 60))
    assert (end_task.command, end_task.due, end_task.announce) == (
        "say stop", start + timedelta(hours=1), ()
    )
    assert start_task.task_id == "Build_Battle.e1.start"
