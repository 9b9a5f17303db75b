"""/event create with conditions for its start task (require, if_not, max_wait, after_wait):
handed to the start task's wall-clock row and kept with the event (its edits and next
occurrences use them); a bad one is refused with nothing made, in Discord or in the tasks."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.testkit.harness import MOD
from tests.cogs.discord_events_fixture import EventHarness, event_harness


@pytest.fixture
async def ev(tmp_path: Path) -> AsyncIterator[EventHarness]:
    async for h in event_harness(tmp_path):
        yield h


async def test_the_start_task_gets_the_conditions(ev: EventHarness) -> None:
    reply = await ev.run(
        "event create",
        MOD,
        name="Restart",
        start="in 2h",
        require="empty",
        if_not="wait",
        max_wait="30m",
        after_wait="run",
    )
    assert "Event #1 **Restart** made" in reply.text, reply.text
    start_task, end_task = ev.tasks.active()
    wanted = {"require": "empty", "if_not": "wait", "max_wait": "30m", "after_wait": "run"}
    assert start_task.conditions == wanted
    assert end_task.conditions is None
    row = await ev.cog.events.store.get(1)
    assert row is not None and row.conditions == wanted


async def test_a_bad_require_makes_nothing(ev: EventHarness) -> None:
    reply = await ev.run("event create", MOD, name="Restart", start="in 2h", require="quiet")
    assert "`require` `quiet` is not a condition" in reply.text, reply.text
    assert not ev.discord.scheduled.live() and not ev.tasks.active()


async def test_the_next_occurrence_keeps_them(ev: EventHarness) -> None:
    reply = await ev.run(
        "event create", MOD, name="Restart", start="in 2h", repeat="1d", require="players>=2"
    )
    assert "made" in reply.text, reply.text
    await ev.advance(2 * 3600)
    ev.tasks.run_due()
    await ev.advance(3600)
    ev.tasks.run_due()
    row = (await ev.cog.events.store.in_states(("scheduled",)))[0]
    assert row.occurrence == 2 and row.conditions == {"require": "players>=2"}
    start_task, end_task = ev.tasks.active()
    assert start_task.conditions == {"require": "players>=2"} and end_task.conditions is None
