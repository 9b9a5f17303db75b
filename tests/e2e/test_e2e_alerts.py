"""Acceptance: a slash command schedules, ticks pass, the pack logs an event, an alert posts."""

from __future__ import annotations

import asyncio

from harness import ALERT_CHANNEL, AUDIT_CHANNEL, MENTION_ROLE, MOD, Harness

from mcsim.server import Server


def alert_titles(harness: Harness) -> list[str]:
    return [e["title"] for p in harness.posts(ALERT_CHANNEL) for e in p.payload["embeds"]]


async def test_failing_task_with_retry_ends_in_an_alert(live: Harness, mc: Server) -> None:
    reply = await live.run(
        "schedule", MOD, run="execute if entity @e[type=minecraft:pig]", time=1,
        retry=2, retry_delay=1, id="nopig",
    )  # fmt: skip
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
    assert any(p.payload["embeds"][0]["title"] == "/schedule" for p in live.posts(AUDIT_CHANNEL))


async def test_player_leaving_and_rejoining(live: Harness, mc: Server) -> None:
    mc.join("Steve")
    reply = await live.run("schedule", MOD, run="say hi", time=5, as_player="Steve", id="greet")
    assert "Scheduled `greet`" in reply.text
    mc.leave("Steve")
    await asyncio.to_thread(mc.step, 10)
    await live.discord.wait_for(
        lambda: "Task waiting: its player went offline" in alert_titles(live)
    )
    mc.join("Steve")
    await asyncio.to_thread(mc.step, 25)  # the pack looks for returning players every 20 ticks
    await live.discord.wait_for(lambda: "Task resumed: its player is back" in alert_titles(live))
    assert "[Steve] hi" in mc.chat("Steve")
