"""bot.store.event_log on both engines: events newest first and paged by id, the newest `keep`
kept as more come, details as strings."""

from __future__ import annotations

from types import MappingProxyType

from bot.events.event import Event
from bot.store.db import Database
from bot.store.event_log import EventLog


def _event(seq: int, **details: object) -> Event:
    return Event("main", seq, "ran", f"t{seq}", 2**40 + seq, MappingProxyType(details))


async def test_events_come_back_newest_first_and_page_by_id(store_db: Database) -> None:
    log = EventLog(store_db)
    assert await log.recent(limit=5) == []
    for seq in range(1, 8):
        await log.add(_event(seq, why="too_few", players=3 if seq == 7 else 0))
    page = await log.recent(limit=3)
    assert [s.event.seq for s in page] == [7, 6, 5]
    assert page[0].event.details == {"why": "too_few", "players": "3"}
    assert page[0].event.game_time == 2**40 + 7 and page[0].event.task_id == "t7"
    older = await log.recent(limit=10, before=page[-1].id)
    assert [s.event.seq for s in older] == [4, 3, 2, 1]
    assert await log.recent(limit=3, before=older[-1].id) == []


async def test_only_the_newest_are_kept(store_db: Database) -> None:
    log = EventLog(store_db, keep=10)
    for seq in range(1, 103):  # the prune runs on the 1st and 101st adds
        await log.add(_event(seq))
    kept = [s.event.seq for s in await log.recent(limit=200)]
    assert kept == list(range(102, 91, -1))  # the newest ten at the prune, and one since
