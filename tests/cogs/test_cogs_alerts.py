"""Alerts: the pack's event lines in latest.log, read by the real tailer, posted as embeds; the
events another process read, relayed to the bus, posted too."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from discord.http import Route

from bot.config import ServerConfig
from bot.core import Core
from bot.events.event import Event
from bot.events.log_tail import LogTailer
from bot.minecraft.rcon import RconClient
from bot.services import ServerServices, Services
from bot.store.audit import AuditStore
from bot.testkit.harness import ALERT_CHANNEL, MENTION_ROLE, MOD, Harness, make_settings
from mcsim.log import ServerLog

OWN_CHANNEL = 6101


def said(kind: str, task: str, seq: int, t: int, **extra: str) -> str:
    """The message part of the log line the pack's `say` writes for an event."""
    tail = "".join(f" {k}={v}" for k, v in extra.items())
    return f"[Not Secure] [Server] [doom.schedule] event={kind} id={task} seq={seq} t={t}{tail}"


async def live_log(harness: Harness | Core, server: str, logs_dir: Path) -> ServerLog:
    """The server's log, once its tailer is following it (a fresh tailer starts at the end)."""
    log = ServerLog(logs_dir)
    tailer = harness.services.servers[server].events
    assert isinstance(tailer, LogTailer)
    async with asyncio.timeout(5):
        while tailer.lines_read == 0:
            log.info("[Not Secure] [Rcon] probe")
            await asyncio.sleep(0.02)
    return log


@pytest.fixture
async def tailed(tmp_path: Path) -> AsyncIterator[Harness]:
    """Two servers whose events come from their latest.log; beta has its own alert channel."""
    configs = [
        ServerConfig(name="alpha", rcon_password="x", log_path=tmp_path / "a" / "latest.log"),  # type: ignore[arg-type]
        ServerConfig(
            name="beta",
            rcon_password="x",
            log_path=tmp_path / "b" / "latest.log",  # type: ignore[arg-type]
            alert_channel_id=OWN_CHANNEL,
        ),
    ]
    settings = make_settings(tmp_path, configs)
    store = AuditStore(tmp_path / "audit.sqlite3")
    servers = {}
    for config in configs:
        assert config.log_path is not None
        # nothing here talks to a server: the alerts cog only reads the event source
        rcon = RconClient("127.0.0.1", 9, "x")
        tailer = LogTailer(config.log_path, config.name, store, poll_interval=0.02)
        servers[config.name] = ServerServices(config, rcon, None, None, tailer, None, "log")  # type: ignore[arg-type]
    harness = await Harness(settings, Services(settings, servers, store)).start()
    cog = harness.bot.get_cog("Alerts")
    assert cog is not None and type(cog).__name__ == "AlertsCog"
    cog.batch_window = 0.2  # type: ignore[attr-defined]
    try:
        yield harness
    finally:
        await harness.close()


async def test_a_burst_is_one_message_with_an_embed_each(tailed: Harness, tmp_path: Path) -> None:
    log = await live_log(tailed, "alpha", tmp_path / "a")
    log.info(said("offline", "warn_steve", 1, 100, player="Steve"))
    log.info("[Not Secure] [Rcon] unrelated")
    log.info(said("retry", "x", 2, 110))  # not an alert
    log.info(said("restored", "warn_steve", 3, 200, player="Steve"))
    await tailed.discord.wait_for(lambda: len(tailed.posts(ALERT_CHANNEL)) >= 1)
    log.close()
    [post] = tailed.posts(ALERT_CHANNEL)
    titles = [e["title"] for e in post.payload["embeds"]]
    assert titles == ["Task waiting: its player went offline", "Task resumed: its player is back"]
    fields = {f["name"]: f["value"] for f in post.payload["embeds"][0]["fields"]}
    assert fields["task"] == "`warn_steve`" and fields["server"] == "alpha"
    assert fields["game time"] == "100" and fields["player"] == "`Steve`"
    assert not post.payload.get("content")  # no mention for offline/restored
    assert post.payload["allowed_mentions"]["parse"] == []


async def test_exhaustion_mentions_the_configured_roles(tailed: Harness, tmp_path: Path) -> None:
    log = await live_log(tailed, "beta", tmp_path / "b")
    log.info(said("retry_exhausted", "daily_reward", 7, 5000, retry="3"))
    await tailed.discord.wait_for(lambda: len(tailed.posts(OWN_CHANNEL)) >= 1)
    log.close()
    [post] = tailed.posts(OWN_CHANNEL)
    assert post.payload["content"] == f"<@&{MENTION_ROLE}>"
    assert post.payload["allowed_mentions"]["roles"] == [MENTION_ROLE]
    assert post.payload["embeds"][0]["title"] == "Task failed: no retries left"
    assert tailed.posts(ALERT_CHANNEL) == []  # beta's alerts go to its own channel only


async def test_an_event_relayed_from_another_process_is_posted(
    tailed: Harness, tmp_path: Path
) -> None:
    """Several processes on one database: the one Discord bot posts the alerts of the servers
    another process reads too (bot.background.event_relay hands them to its bus)."""
    log = await live_log(tailed, "beta", tmp_path / "b")  # the cog's reader is on the bus
    log.close()
    far = Event("beta", 9, "retry_exhausted", "far_task", 5000, {"retry": "3"}, relayed=True)
    tailed.services.bus.relay(far)
    await tailed.discord.wait_for(lambda: len(tailed.posts(OWN_CHANNEL)) >= 1)
    [post] = tailed.posts(OWN_CHANNEL)
    assert post.payload["embeds"][0]["title"] == "Task failed: no retries left"
    fields = {f["name"]: f["value"] for f in post.payload["embeds"][0]["fields"]}
    assert fields["task"] == "`far_task`" and fields["server"] == "beta"


async def test_a_process_without_the_gateway_queues_no_alert(
    tailed: Harness, tmp_path: Path
) -> None:
    """Another process holds Discord's gateway (bot.discord.gateway): it posts every server's
    alerts, so this one queues none (a post it could not send would be tried and given up)."""
    log = await live_log(tailed, "beta", tmp_path / "b")
    log.close()
    alerts: Any = tailed.bot.get_cog("Alerts")
    tailed.bot.acting = False
    try:
        far = Event("beta", 9, "retry_exhausted", "far_task", 5000, {"retry": "3"}, relayed=True)
        await alerts.handle(tailed.services.servers["beta"], far)
        assert alerts._pending == {} and alerts._flushers == {}
    finally:
        tailed.bot.acting = True
    await alerts.handle(tailed.services.servers["beta"], far)  # holding it again: queued
    await tailed.discord.wait_for(lambda: len(tailed.posts(OWN_CHANNEL)) >= 1)


async def test_a_large_burst_becomes_one_summary(tailed: Harness, tmp_path: Path) -> None:
    # the whole burst must reach the cog inside one window: 0.2 s was too short for 40 log
    # lines on a loaded machine (a CI-like run got 30 of them in the first post)
    tailed.bot.get_cog("Alerts").batch_window = 1.0  # type: ignore[union-attr]
    log = await live_log(tailed, "alpha", tmp_path / "a")
    for seq in range(1, 41):
        log.info(said("dropped" if seq % 2 else "invalid", f"t{seq}", seq, seq))
    await tailed.discord.wait_for(lambda: len(tailed.posts(ALERT_CHANNEL)) >= 1)
    log.close()
    [post] = tailed.posts(ALERT_CHANNEL)  # a burst is one message, not 40
    [summary] = post.payload["embeds"]
    assert summary["title"] == "40 task events"
    assert summary["description"] == "20 dropped, 20 invalid"
    lines = "\n".join(f["value"] for f in summary["fields"]).split("\n")
    kinds = ["dropped" if seq % 2 else "invalid" for seq in range(1, 41)]
    # every event, in order (a flood is told completely, not "... and 10 more")
    assert lines == [f"`t{seq}` {kinds[seq - 1]} on alpha at {seq}" for seq in range(1, 41)]


async def test_invalid_and_dropped_are_alerts_of_their_own(tailed: Harness, tmp_path: Path) -> None:
    log = await live_log(tailed, "alpha", tmp_path / "a")
    log.info(said("invalid", "typo_task", 11, 300))
    log.info(said("dropped", "marker_task", 12, 310, by="0-0-0-0-1"))
    await tailed.discord.wait_for(lambda: len(tailed.posts(ALERT_CHANNEL)) >= 1)
    log.close()
    [post] = tailed.posts(ALERT_CHANNEL)
    invalid, dropped = post.payload["embeds"]
    assert invalid["title"] == "Task removed: its command does not parse"
    assert dropped["title"] == "Task removed: the entity it runs as is gone"
    assert {f["name"]: f["value"] for f in invalid["fields"]}["task"] == "`typo_task`"
    fields = {f["name"]: f["value"] for f in dropped["fields"]}
    assert fields["task"] == "`marker_task`" and fields["runs as"] == "`0-0-0-0-1`"
    assert not post.payload.get("content")  # mentions are for exhaustion only


async def test_several_servers_need_the_server_option(tailed: Harness) -> None:
    reply = await tailed.run("time", MOD)
    assert reply.ephemeral and "Several servers are configured" in reply.text
    unknown = await tailed.run("time", MOD, server="gamma")
    assert "There is no server called 'gamma' (configured: alpha, beta)." in unknown.text
    everything = await tailed.autocomplete("time", "server", MOD, server="")
    assert [c["value"] for c in everything] == ["alpha", "beta", "all"]  # /time takes a group
    assert [c["value"] for c in await tailed.autocomplete("time", "server", MOD, server="B")] == [
        "beta"
    ]


async def test_an_event_arriving_during_a_post_is_posted_too(
    tailed: Harness, tmp_path: Path
) -> None:
    """Discord takes its time to answer a post: an event that comes meanwhile gets its own."""
    log = await live_log(tailed, "alpha", tmp_path / "a")
    edge = tailed.bot.http.request
    in_flight, answer = asyncio.Event(), asyncio.Event()

    async def slow_discord(route: Route, **kwargs: Any) -> Any:
        if route.path == "/channels/{channel_id}/messages":
            in_flight.set()
            await answer.wait()
        return await edge(route, **kwargs)

    tailed.bot.http.request = slow_discord  # type: ignore[method-assign]
    log.info(said("offline", "warn_steve", 1, 100, player="Steve"))
    async with asyncio.timeout(5):
        await in_flight.wait()
        handled = tailed.bot.wait_for("doom_event", check=lambda ev: ev.seq == 2)
        log.info(said("restored", "warn_steve", 2, 200, player="Steve"))
        await handled  # queued while the first post waits for Discord
    answer.set()
    await tailed.discord.wait_for(lambda: len(tailed.posts(ALERT_CHANNEL)) == 2)
    log.close()
    first, second = tailed.posts(ALERT_CHANNEL)
    assert [e["title"] for e in first.payload["embeds"]] == [
        "Task waiting: its player went offline"
    ]
    assert [e["title"] for e in second.payload["embeds"]] == ["Task resumed: its player is back"]


async def test_alerts_waiting_in_their_window_are_posted_once_when_the_bot_closes(
    tmp_path: Path,
) -> None:
    """The bot closes inside a batch window: the waiting alerts are posted then, once, without
    waiting out the window, and no post is left running after the close."""
    config = ServerConfig(name="alpha", rcon_password="x", log_path=tmp_path / "latest.log")  # type: ignore[arg-type]
    settings = make_settings(tmp_path, [config])
    store = AuditStore(tmp_path / "audit.sqlite3")
    tailer = LogTailer(tmp_path / "latest.log", "alpha", store, poll_interval=0.02)
    rcon = RconClient("127.0.0.1", 9, "x")
    servers = {"alpha": ServerServices(config, rcon, None, None, tailer, None, "log")}  # type: ignore[arg-type]
    harness = await Harness(settings, Services(settings, servers, store)).start()
    cog = harness.bot.get_cog("Alerts")
    cog.batch_window = 30.0  # type: ignore[union-attr]
    log = await live_log(harness, "alpha", tmp_path)
    handled = harness.bot.wait_for("doom_event", check=lambda ev: ev.seq == 1)
    log.info(said("offline", "warn_steve", 1, 100, player="Steve"))
    await asyncio.wait_for(handled, 5)
    log.close()
    before = asyncio.all_tasks()
    began = asyncio.get_running_loop().time()
    await harness.close()
    assert asyncio.get_running_loop().time() - began < 10  # not the 30 s window
    [post] = harness.posts(ALERT_CHANNEL)
    assert [e["title"] for e in post.payload["embeds"]] == ["Task waiting: its player went offline"]
    left = [t for t in before if not t.done() and t is not asyncio.current_task()]
    assert left == [], [t.get_name() for t in left]
