"""Two real bot processes (`python -m bot serve`) on one PostgreSQL with two mcsim servers, one
server each: the dashboard's live feed of either process shows the events of both servers, each
once with its seq, and the shared event log keeps each once (bot.background.event_relay)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from tests.fleet.processes import Bot, Fleet, fleet

pytestmark = pytest.mark.slow
TTL = 4.0
FAILS = "execute if entity @e[type=minecraft:pig]"  # no pig in the world: the pack retries


@contextlib.asynccontextmanager
async def _feed(group: Fleet, bot: Bot) -> AsyncIterator[list[dict[str, Any]]]:
    """The events of a process's /events/stream, as they come, while the block runs."""
    got: list[dict[str, Any]] = []
    subscribed = asyncio.Event()
    auth = {"Authorization": f"Bearer {group.token}"}

    async def read() -> None:
        timeout = aiohttp.ClientTimeout(total=90, sock_read=30)
        async with (
            aiohttp.ClientSession(timeout=timeout) as http,
            http.get(f"{bot.base}/events/stream", headers=auth) as r,
        ):
            assert r.status == 200, await r.text()
            kind = ""
            while True:
                line = (await r.content.readline()).decode().rstrip("\n")
                if line.startswith("retry:"):  # said once the stream has subscribed
                    subscribed.set()
                elif line.startswith("event: "):
                    kind = line[7:]
                elif line.startswith("data: ") and kind == "pack":
                    got.append({**json.loads(line[6:]), "at": time.monotonic()})

    task = asyncio.create_task(read())
    try:
        done, _ = await asyncio.wait(
            {task, asyncio.ensure_future(subscribed.wait())},
            timeout=15,
            return_when=asyncio.FIRST_COMPLETED,
        )
        if task in done:
            task.result()
        assert subscribed.is_set(), "the stream did not open"
        yield got
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


def _of(feed: list[dict[str, Any]], task_id: str) -> list[tuple[str, int, str]]:
    return [(e["server"], e["seq"], e["type"]) for e in feed if e["task_id"] == task_id]


async def test_each_process_feed_shows_every_servers_events_once(
    tmp_path: Path, postgres: Any
) -> None:
    async with fleet(tmp_path, postgres, ttl=TTL) as group:
        first = await group.start_bot()
        second = await group.start_bot()
        await group.wait_for(
            lambda: {group.holder_of("a"), group.holder_of("b")} == {first.pid, second.pid},
            3 * TTL,
            "one server each",
        )
        # the fleet looks at the leases every second: let both processes see the share-out
        await asyncio.sleep(2.0)
        holder = {"a": group.holder_of("a"), "b": group.holder_of("b")}
        a_bot, b_bot = group.bot_of(holder["a"] or 0), group.bot_of(holder["b"] or 0)
        async with _feed(group, a_bot) as feed_a, _feed(group, b_bot) as feed_b:
            began = time.monotonic()
            # a task that fails on each server, made through its holder's API: the pack's
            # input and outcome record are guarded by one lock a process, so a request sent by
            # another process at the moment the holder reads the pack can find the record taken
            for bot, server in ((a_bot, "a"), (b_bot, "b")):
                body = {"run": FAILS, "time": 1, "unit": "tick", "id": f"nopig{server}"}
                assert group.http is not None
                async with group.http.post(
                    f"{bot.base}/api/servers/{server}/tasks",
                    json=body,
                    headers={"Authorization": f"Bearer {group.token}"},
                ) as r:
                    assert r.status == 201, await r.text()

            def exhausted(feed: list[dict[str, Any]], server: str) -> bool:
                return (server, "retry_exhausted") in {
                    (s, t) for s, _q, t in _of(feed, f"nopig{server}")
                }

            while not all(exhausted(f, s) for f in (feed_a, feed_b) for s in "ab"):
                assert time.monotonic() - began < 30, (feed_a, feed_b)
                await asyncio.sleep(0.1)
            took = time.monotonic() - began
            await asyncio.sleep(2.0)  # a second copy would have come by now
        db = group.url.rsplit("/", 1)[1]
        rows = group.pg.psql(
            "SELECT server, seq, type, task_id FROM event_log WHERE task_id LIKE 'nopig%' "
            "ORDER BY id",
            database=db,
        ).stdout.splitlines()
        kept = [tuple(r.split("|")) for r in rows]
        for server in "ab":
            task_id = f"nopig{server}"
            logged = [(s, int(q), t) for s, q, t, i in kept if i == task_id]
            assert logged and len(set(logged)) == len(logged), kept  # each kept once
            assert all(s == server for s, _q, _t in logged)
            # the holder's feed and the other's show the same events, each once, with its seq
            assert _of(feed_a, task_id) == logged, (server, feed_a)
            assert _of(feed_b, task_id) == logged, (server, feed_b)
        # how much later the other process's feed shows an event than the holder's
        arrived = {
            (f is feed_a, e["server"], e["seq"]): e["at"]
            for f in (feed_a, feed_b)
            for e in f
            if e["task_id"].startswith("nopig")
        }
        holder_feed = {"a": True, "b": False}  # keyed `f is feed_a`
        lags = [
            at - arrived[(holder_feed[server], server, seq)]
            for (in_a, server, seq), at in arrived.items()
            if in_a != holder_feed[server]
        ]
        print(
            f"both feeds had every event {took:.2f} s after scheduling; relayed "
            f"{len(lags)} events, later than the holder's feed by at most {max(lags):.3f} s"
        )
