"""bot.store.task_runs on both engines: runs recorded with their ids, the newest 'ran' amended,
paged newest first with a count, read after an id, pruned by due."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.store.db import Database
from bot.store.task_runs import TaskRunStore

T0 = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)


async def test_runs_recorded_amended_paged_and_pruned(store_db: Database) -> None:
    store = TaskRunStore(store_db)
    assert await store.last_id() == 0
    assert not await store.amend_last_ran("main", "door", outcome="invalid", attempts=1)
    ids = [
        await store.record("main", "door", due=T0 + timedelta(minutes=i), outcome="ran")
        for i in range(3)
    ]
    other = await store.record(
        "lobby",
        "door",
        due=T0,
        outcome="queued",
        handed_over=T0 + timedelta(seconds=1),
        ran=T0 + timedelta(seconds=2),
        lateness=2.5,
        attempts=3,
        triggered_by="Ada",
    )
    assert ids == sorted(ids) and other > ids[-1] and await store.last_id() == other
    # the newest run still said 'ran' of this server's task, and only that one
    assert await store.amend_last_ran("main", "door", outcome="retry_exhausted", attempts=4)
    page, total = await store.runs("main", "door", limit=2)
    assert total == 3
    assert [(r.id, r.outcome, r.attempts) for r in page] == [
        (ids[2], "retry_exhausted", 4),
        (ids[1], "ran", 1),
    ]
    rest, _ = await store.runs("main", "door", offset=2, limit=2)
    assert [r.id for r in rest] == [ids[0]]
    [lobby] = (await store.runs("lobby", "door"))[0]
    assert (lobby.handed_over, lobby.ran, lobby.lateness, lobby.triggered_by) == (
        T0 + timedelta(seconds=1),
        T0 + timedelta(seconds=2),
        2.5,
        "Ada",
    )
    assert lobby.due == T0 and lobby.outcome == "queued" and lobby.attempts == 3
    assert [r.id for r in await store.after(ids[0])] == [ids[1], ids[2], other]
    assert [r.id for r in await store.after(ids[0], limit=1)] == [ids[1]]
    assert await store.prune(T0 + timedelta(minutes=1)) == 2  # main's first and lobby's
    assert [r.id for r in await store.after(0)] == [ids[1], ids[2]]
    assert await store.prune(T0) == 0
