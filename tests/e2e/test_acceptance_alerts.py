"""Acceptance (audit): the `invalid` and `dropped` alerts end to end, from the real pack's `say`
line in latest.log through the log tailer to the embed, including the `by` and `late` details.

The cogs' own test feeds hand-written lines; this one lets the pack write them, so a change in
the pack's line (a new key such as `late=`) that the tailer or the embed mishandles is caught.
Neither task can come from a slash command (the checker refuses an unparsable command, and a
slash command cannot run as a marker), so both are scheduled in the game.
"""

from __future__ import annotations

import asyncio
from typing import Any

from bot.events.event import Event
from bot.testkit.harness import ALERT_CHANNEL, Harness
from mcsim.server import Server

__all__: list[str] = []


def read_by_the_bot(live: Harness, kind: str, task_id: str) -> asyncio.Future[Event]:
    """Resolves when the bot has taken this event from its source (registered before the ticks)."""
    return asyncio.ensure_future(
        live.bot.wait_for("doom_event", check=lambda ev: ev.type == kind and ev.task_id == task_id)
    )


def stored_event(mc: Server, kind: str, task_id: str) -> dict[str, Any]:
    entries: Any = mc.storage("doom.schedule:events")["entries"]
    [entry] = [e for e in entries if e["type"] == kind and e["id"] == task_id]
    return dict(entry)


async def run(mc: Server, command: str) -> None:
    result = await asyncio.to_thread(mc.run, command)
    assert result.success, (command, result.feedback)


async def test_invalid_and_dropped_reach_the_alert_channel_with_their_details(
    live: Harness, mc: Server
) -> None:
    alerts: Any = live.bot.get_cog("Alerts")
    # one due task per tick, so the marker's task runs a tick late and its event carries late=1
    await run(mc, "data modify storage doom.schedule:data cfg.cap set value 1")
    await run(
        mc,
        "data modify storage doom.schedule:in task set value "
        '{run:"definitely not a command",time:2,unit:"t",id:"typo_task"}',
    )
    await run(mc, "function doom.schedule:submit")
    await run(mc, 'summon minecraft:marker 0 64 0 {Tags:["audit_exec"]}')
    await run(
        mc,
        "execute as @e[tag=audit_exec,limit=1] run function doom.schedule:schedule "
        '{run:"say from the marker",time:2,unit:"t",id:"marker_task"}',
    )
    await run(mc, "kill @e[tag=audit_exec]")
    invalid = read_by_the_bot(live, "invalid", "typo_task")
    dropped = read_by_the_bot(live, "dropped", "marker_task")
    await asyncio.sleep(0)  # both listeners are registered before the ticks
    await asyncio.to_thread(mc.step, 5)

    logged = mc.log_path.read_text()
    assert "event=invalid id=typo_task" in logged
    assert "event=dropped id=marker_task" in logged
    async with asyncio.timeout(5):
        got_invalid, got_dropped = await invalid, await dropped
    stored = stored_event(mc, "dropped", "marker_task")
    assert stored["late"] == 1  # the cap held it back one tick
    assert got_dropped.details.get("late") == "1"
    assert got_dropped.details.get("by") == stored["by"]
    assert "late" not in got_invalid.details  # it ran on its tick
    assert got_dropped.seq == stored["seq"] and got_dropped.game_time == stored["t"]

    await alerts.flush(ALERT_CHANNEL)
    embeds = {
        e["title"]: {f["name"]: f["value"] for f in e["fields"]}
        for p in live.posts(ALERT_CHANNEL)
        for e in p.payload["embeds"]
    }
    assert set(embeds) == {
        "Task removed: its command does not parse",
        "Task removed: the entity it runs as is gone",
    }
    bad = embeds["Task removed: its command does not parse"]
    gone = embeds["Task removed: the entity it runs as is gone"]
    assert bad["task"] == "`typo_task`" and bad["server"] == "main"
    assert gone["task"] == "`marker_task`" and gone["runs as"] == f"`{stored['by']}`"
    assert gone["late"] == "`1`" and gone["game time"] == str(stored["t"])
    # nothing is left of either task
    queue: Any = mc.storage("doom.schedule:data").get("queue", [])
    assert [t["id"] for t in queue] == []
