"""Acceptance: a slash command schedules, ticks pass, the pack logs an event, an alert posts."""

from __future__ import annotations

import asyncio
from typing import Any

from bot.events.event import Event
from bot.testkit.harness import ALERT_CHANNEL, AUDIT_CHANNEL, MENTION_ROLE, MOD, Harness
from mcsim.server import Server


def alert_titles(harness: Harness) -> list[str]:
    return [e["title"] for p in harness.posts(ALERT_CHANNEL) for e in p.payload["embeds"]]


async def test_failing_task_with_retry_ends_in_an_alert(live: Harness, mc: Server) -> None:
    reply = await live.run(
        "schedule",
        MOD,
        run="execute if entity @e[type=minecraft:pig]",
        time=1,
        unit="tick",
        retry=2,
        retry_delay=1,
        id="nopig",
    )
    assert "Scheduled `nopig` on main." in reply.text and reply.ephemeral
    await asyncio.to_thread(mc.step, 10)
    assert "event=retry_exhausted id=nopig" in mc.log_path.read_text()
    await live.discord.wait_for(lambda: "Task failed: no retries left" in alert_titles(live))
    [post] = [p for p in live.posts(ALERT_CHANNEL) if "Task failed" in str(p.payload)]
    assert post.payload["content"] == f"<@&{MENTION_ROLE}>"
    fields = {f["name"]: f["value"] for f in post.payload["embeds"][0]["fields"]}
    assert fields["task"] == "`nopig`" and fields["server"] == "main"
    # the retries themselves are not alerts
    assert all("retry" not in t.lower() or "no retries" in t for t in alert_titles(live))
    # the mutation was audited in the store and in the audit channel
    [audited] = await live.services.audit.mutations(server="main")
    assert audited.action == "schedule" and audited.user_id == MOD.id
    assert audited.request["id"] == "nopig"
    await live.bot.audit_posted()
    assert any(p.payload["embeds"][0]["title"] == "/schedule" for p in live.posts(AUDIT_CHANNEL))


def read_by_the_bot(live: Harness, kind: str, task_id: str) -> asyncio.Future[Event]:
    """Resolves when the bot has taken this event from its source (the alerts cog dispatches
    ``doom_event`` as it queues the alert). Registered before the ticks that log the event."""
    return asyncio.ensure_future(
        live.bot.wait_for("doom_event", check=lambda ev: ev.type == kind and ev.task_id == task_id)
    )


async def test_player_leaving_and_rejoining(live: Harness, mc: Server) -> None:
    # Driven by conditions, not timers: the pack's line is in latest.log when the ticks return;
    # the bot has read it when its doom_event fires; the alert is posted by flushing the batch
    # (not by waiting out the batch window). Server calls run off the event loop, so the loop
    # never stalls on the server's lock while the bot reads the log.
    alerts: Any = live.bot.get_cog("Alerts")  # the extension's own module: no isinstance
    assert type(alerts).__name__ == "AlertsCog"
    await asyncio.to_thread(mc.join, "Steve")
    reply = await live.run(
        "schedule", MOD, run="say hi", time=5, unit="tick", as_player="Steve", id="greet"
    )
    assert "Scheduled `greet`" in reply.text
    await asyncio.to_thread(mc.leave, "Steve")
    offline = read_by_the_bot(live, "offline", "greet")
    await asyncio.sleep(0)  # the listener is registered before the ticks
    await asyncio.to_thread(mc.step, 10)
    assert "event=offline id=greet" in mc.log_path.read_text()
    async with asyncio.timeout(5):
        await offline
    await alerts.flush(ALERT_CHANNEL)
    assert alert_titles(live) == ["Task waiting: its player went offline"]

    await asyncio.to_thread(mc.join, "Steve")
    restored = read_by_the_bot(live, "restored", "greet")
    await asyncio.sleep(0)
    await asyncio.to_thread(mc.step, 2)  # the pack restores a returning player's tasks at once
    assert "event=restored id=greet" in mc.log_path.read_text()
    async with asyncio.timeout(5):
        await restored
    await alerts.flush(ALERT_CHANNEL)
    assert alert_titles(live) == [
        "Task waiting: its player went offline",
        "Task resumed: its player is back",
    ]
    assert "[Steve] hi" in mc.chat("Steve")
