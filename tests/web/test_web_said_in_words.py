"""What the dashboard shows a moderator in words: a planned row's conditions and countdown on
the planned page, an event's reason (not the pack's code word, not the run's key), and the
events page's recent past read from the store, so a restart does not empty it."""

from __future__ import annotations

import asyncio
import json
import re
from types import MappingProxyType

from bot.events.event import Event
from bot.store.db import Database
from bot.testkit.harness import MOD
from tests.web.webclient import Client
from tests.web.webdash import Dash


async def test_a_planned_rows_conditions_and_countdown_are_on_the_planned_page(
    dash: Dash,
) -> None:
    h = dash.harness
    reply = await h.run(
        "schedule",
        MOD,
        run="say raid",
        id="raid",
        when="fri 20:00",
        require="players>=2",
        if_not="wait",
        max_wait="10m",
        announce="5m,1m",
    )
    assert "Planned `raid`" in reply.text
    client = await Client(dash).login(MOD)
    try:
        status, html = await client.get("/servers/main/planned")
        assert status == 200
        row = html.split("<code>raid</code>")[1].split("</tr>")[0]
        assert "only if: <code>players&gt;=2</code>; if not: wait up to 10m, then skip" in row
        assert "announce: 5m, 1m" in row
        status, body = await client.get("/api/servers/main/lists/planned")
        [found] = json.loads(body)["tasks"]
        assert found["conditions"] == {"require": "players>=2", "if_not": "wait", "max_wait": "10m"}
        assert found["announce"] == [300, 60]
    finally:
        await client.close()


async def test_an_events_reason_is_said_in_words_and_kept_across_a_restart(
    dash: Dash,
) -> None:
    h = dash.harness
    reply = await h.run(
        "schedule", MOD, run="say lonely", time=10, unit="tick", id="lonely", require="players>=2"
    )
    assert "Scheduled `lonely`" in reply.text
    bus = h.services.bus
    record, kept = bus.recorder, asyncio.Event()
    assert record is not None

    async def noted(event: Event) -> None:  # the test waits for the store, not for a time
        await record(event)
        if event.type == "skipped":
            kept.set()

    bus.recorder = noted
    said = asyncio.ensure_future(  # the alerts cog has read it through the bus
        h.bot.wait_for("doom_event", check=lambda ev: ev.type == "skipped", timeout=30)
    )
    await asyncio.sleep(0)
    await asyncio.to_thread(dash.mc.step, 12)  # nobody online: due, and skipped
    skipped = await said
    await asyncio.wait_for(kept.wait(), 5)
    assert skipped.details["why"] == "too_few" and "k" in skipped.details
    bus.history.clear()  # what the bot remembers in memory: gone with a restart
    client = await Client(dash).login(MOD)
    try:
        status, html = await client.get("/events")
        assert status == 200
        row = html.split("<code>lonely</code>")[1].split("</tr>")[0]
        assert "why=fewer players online than it requires" in row, row
        assert "players online=0" in row, row
        assert "too_few" not in row and "k=" not in row, row
        # the API keeps the pack's own fields, the key included, for whoever needs them
        _status, body = await client.get("/api/events")
        [event] = [e for e in json.loads(body)["events"] if e["task_id"] == "lonely"]
        assert event["details"]["why"] == "too_few" and event["details"]["k"]
    finally:
        await client.close()
    # a bot started again opens the same database: the event is there
    from bot.store.event_log import EventLog

    again = EventLog(Database(h.services.db.path))
    try:
        assert [s.event.task_id for s in await again.recent(limit=5)] == ["lonely"]
    finally:
        await again.db.close()


async def test_the_events_page_is_newest_first_and_paged(dash: Dash) -> None:
    log = dash.harness.services.event_log
    for seq in range(1, 103):
        await log.add(Event("main", seq, "ran", f"task{seq}", seq * 10, MappingProxyType({})))
    client = await Client(dash).login(MOD)
    try:
        status, html = await client.get("/events")
        assert status == 200
        ids = re.findall(r"<code>(task\d+)</code>", html)
        assert ids[:3] == ["task102", "task101", "task100"] and len(ids) == 100
        older = re.search(r'href="\?before=(\d+)">Older</a>', html)
        assert older is not None, html
        status, html = await client.get(f"/events?before={older.group(1)}")
        assert re.findall(r"<code>(task\d+)</code>", html)[:2] == ["task2", "task1"]
        assert "data-stream" not in html  # an older page does not follow the live feed
        assert "Older</a>" not in html
        status, html = await client.get("/events?before=soon")
        assert status == 400 and "page marker" in html
    finally:
        await client.close()
