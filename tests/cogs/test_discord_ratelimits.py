"""Rate limits as Discord keeps them: per-route buckets with the X-RateLimit-* headers
discord.py reads, 429s with retry_after, and an alert flood that reaches its channel complete
and in order while another client of the same token eats into the bucket. Windows are shortened
(5 per 0.2 or 0.5 s instead of 5 per 5 s) so the flood takes seconds, not a minute."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from discord.http import Route

from bot.config import ServerConfig
from bot.events.kinds import ALERTS
from bot.events.log_tail import LogTailer
from bot.minecraft.rcon import RconClient
from bot.services import ServerServices, Services
from bot.store.audit import AuditStore
from bot.testkit.harness import ALERT_CHANNEL, Harness, make_settings
from bot.testkit.localdiscord.emulator import Sent
from bot.testkit.localdiscord.http_session import RateLimits
from tests.cogs.test_cogs_alerts import live_log, said

POSTS = "POST /channels/{channel_id}/messages"


def short_limits() -> RateLimits:
    return RateLimits({POSTS: (5, 0.2)})


@pytest.fixture
async def flooded(tmp_path: Path) -> AsyncIterator[Harness]:
    config = ServerConfig(name="alpha", rcon_password="x", log_path=tmp_path / "a" / "latest.log")  # type: ignore[arg-type]
    settings = make_settings(tmp_path, [config])
    store = AuditStore(tmp_path / "audit.sqlite3")
    assert config.log_path is not None
    tailer = LogTailer(config.log_path, config.name, store, poll_interval=0.02)
    rcon = RconClient("127.0.0.1", 9, "x")  # never used: alerts only read the event source
    server = ServerServices(config, rcon, None, None, tailer, None, "log")  # type: ignore[arg-type]
    harness = Harness(settings, Services(settings, {"alpha": server}, store))
    harness.discord.rate_limits = RateLimits({POSTS: (5, 0.5)})
    await harness.start()
    harness.bot.get_cog("Alerts").batch_window = 0.2  # type: ignore[union-attr]
    try:
        yield harness
    finally:
        await harness.close()


async def test_discord_py_paces_itself_by_the_headers(bare: Harness) -> None:
    bare.discord.rate_limits = short_limits()
    channel = bare.bot.get_partial_messageable(ALERT_CHANNEL)
    started = time.monotonic()
    for i in range(12):
        await channel.send(f"message {i}")
    assert [p.payload["content"] for p in bare.posts(ALERT_CHANNEL)] == [
        f"message {i}" for i in range(12)
    ]
    # it read Remaining/Reset-After and waited out two windows instead of meeting a 429
    assert bare.discord.rate_limits.limited == []
    assert time.monotonic() - started >= 0.35


async def test_a_429_as_discord_sends_it(bare: Harness) -> None:
    limits = bare.discord.rate_limits = short_limits()
    limits.spend(POSTS, str(ALERT_CHANNEL), 5)  # another client of the token used the bucket
    route = Route("POST", "/channels/{channel_id}/messages", channel_id=ALERT_CHANNEL)
    session = bare.bot.http._HTTPClient__session  # type: ignore[attr-defined]
    async with session.request("POST", route.url, data=json.dumps({"content": "x"})) as answer:
        body = json.loads(await answer.text())
        headers = answer.headers
    assert answer.status == 429
    assert body["message"] == "You are being rate limited." and body["global"] is False
    assert 0 < body["retry_after"] <= 0.2
    assert headers["X-RateLimit-Limit"] == "5" and headers["X-RateLimit-Remaining"] == "0"
    assert headers["X-RateLimit-Scope"] == "user" and headers["Retry-After"] == "1"
    assert float(headers["X-RateLimit-Reset-After"]) <= 0.2 and headers["X-RateLimit-Bucket"]
    assert headers["Via"]  # without it discord.py takes a 429 for a Cloudflare ban
    # discord.py itself sleeps retry_after and sends again
    await bare.bot.get_partial_messageable(ALERT_CHANNEL).send("after the wait")
    assert [p.payload["content"] for p in bare.posts(ALERT_CHANNEL)] == ["after the wait"]
    assert len(limits.limited) == 2  # ours above, then discord.py's first try
    # other channels have buckets of their own (channel_id is a top-level resource)
    limits.spend(POSTS, str(ALERT_CHANNEL), 5)
    await bare.bot.get_partial_messageable(ALERT_CHANNEL + 1).send("elsewhere")
    assert len(limits.limited) == 2


async def test_an_alert_flood_arrives_complete_and_in_order(
    flooded: Harness, tmp_path: Path
) -> None:
    limits = flooded.discord.rate_limits

    def neighbour(sent: Sent) -> None:
        # another process on the same token posts twice to the channel after each of ours, so
        # discord.py's count of what is left is always too high: it meets 429s
        if sent.kind == "channel":
            limits.spend(POSTS, str(ALERT_CHANNEL), 2)

    flooded.discord.listeners.append(neighbour)
    log = await live_log(flooded, "alpha", tmp_path / "a")
    kinds = ["retry_exhausted", "dropped", "invalid", "offline", "restored"]
    # a summary line names the kind as readers do (cogs.alerts.KINDS), in English here
    shown = {"retry_exhausted": "out of retries"}
    started = time.monotonic()
    for seq in range(1, 501):
        log.info(said(kinds[seq % 5], f"flood-{seq:03d}-任务", seq, 1000 + seq, retry="3"))
    assert time.monotonic() - started < 1.0  # 500 events within a second

    # a batch that a slow machine cuts small is posted as an embed per event, titled by kind
    titles = {str(title): kind for kind, (title, _colour) in ALERTS.items()}

    def lines() -> list[str]:
        out: list[str] = []
        for post in flooded.posts(ALERT_CHANNEL):
            for embed in post.payload["embeds"]:
                fields = {f["name"]: f["value"] for f in embed.get("fields", [])}
                if "events" in fields:  # a summary: the events' lines, all fields of that name
                    out += [
                        line
                        for f in embed["fields"]
                        if f["name"] == "events"
                        for line in f["value"].split("\n")
                    ]
                else:  # a batch small enough for an embed each: its line made from its fields
                    kind = titles[embed["title"]]
                    out.append(
                        f"{fields['task']} {shown.get(kind, kind)} on {fields['server']}"
                        f" at {fields['game time']}"
                    )
        return out

    await flooded.discord.wait_for(lambda: len(lines()) >= 500, limit=60)
    log.close()
    expected = [
        f"`flood-{seq:03d}-任务` {shown.get(kinds[seq % 5], kinds[seq % 5])} on alpha"
        f" at {1000 + seq}"
        for seq in range(1, 501)
    ]
    assert lines() == expected  # every event, once, in order
    assert len(limits.limited) >= 1  # under the 429s
    assert len(flooded.posts(ALERT_CHANNEL)) >= 3
    assert all(
        p.payload["content"] is None or "<@&" in p.payload["content"]
        for p in flooded.posts(ALERT_CHANNEL)
    )
    await asyncio.sleep(0)


@pytest.mark.slow
async def test_an_alert_discord_py_gave_up_on_is_posted_again(
    flooded: Harness, tmp_path: Path
) -> None:
    limits = flooded.discord.rate_limits
    alerts = flooded.bot.get_cog("Alerts")
    alerts.retry_wait = 0.05  # type: ignore[union-attr]
    take = limits.take
    refused = 0

    def busy(request: Any, *, interaction: bool) -> Any:
        nonlocal refused
        if request.key == POSTS and refused < 6:  # more 429s than discord.py's 5 tries
            refused += 1
            limits.spend(POSTS, str(ALERT_CHANNEL), 5)
        return take(request, interaction=interaction)

    limits.take = busy  # type: ignore[method-assign]
    log = await live_log(flooded, "alpha", tmp_path / "a")
    log.info(said("retry_exhausted", "persistent", 1, 100, retry="3"))
    await flooded.discord.wait_for(lambda: len(flooded.posts(ALERT_CHANNEL)) >= 1, limit=30)
    log.close()
    [post] = flooded.posts(ALERT_CHANNEL)
    assert post.payload["embeds"][0]["fields"][0]["value"] == "`persistent`"
    assert refused == 6 and len(limits.limited) >= 6
