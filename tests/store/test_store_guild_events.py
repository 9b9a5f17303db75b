"""bot.store.guild_events on both engines: a row's states, its reads, 64-bit ids, and one row per
Discord event id even when two processes bind it at once."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from bot.errors import ValidationError
from bot.store.db import Database
from bot.store.guild_events import GuildEventStore, NewEvent

NOW = datetime(2026, 12, 7, 10, 0, tzinfo=UTC)
BIG = 1_234_567_890_123_456_789  # a Discord snowflake: past 32 bits
GUILD = 987_654_321_098_765_432


def new_event(
    name: str = "Build Battle", *, server: str = "main", hours: float = 1, **extra: object
) -> NewEvent:
    start = NOW + timedelta(hours=hours)
    values: dict[str, object] = {
        "server": server,
        "guild_id": GUILD,
        "name": name,
        "description": None,
        "location": "mc.example.org",
        "start": start,
        "end": start + timedelta(hours=1),
        "start_run": "say go",
        "end_run": "say stop",
        "announce": (3600,),
        "reminders": (600, 60),
        "repeat": None,
        "anchor": None,
        "timezone": "Europe/Paris",
        "created_by_id": BIG,
        "created_by_name": "admin",
    }
    values.update(extra)
    return NewEvent(**values)  # type: ignore[arg-type]


async def test_a_row_is_made_creating_and_reads_back_as_stored(store_db: Database) -> None:
    store = GuildEventStore(store_db)
    row = await store.insert(
        new_event(repeat="1d", anchor=NOW, conditions={"require": "players>=2"}), NOW
    )
    assert row.state == "creating"
    assert row.discord_id is None and row.tasks == ()
    assert row.guild_id == GUILD and row.created_by_id == BIG
    assert row.start == NOW + timedelta(hours=1) and row.anchor == NOW
    assert row.announce == (3600,) and row.reminders == (600, 60) and row.reminders_sent == ()
    assert row.conditions == {"require": "players>=2"}
    assert row.created_at == NOW and row.occurrence == 1 and row.revision == 0
    assert await store.get(row.id) == row
    assert await store.get(row.id + 1000) is None


async def test_state_changes_and_what_each_read_finds(store_db: Database) -> None:
    store = GuildEventStore(store_db)
    late = await store.insert(new_event("Late", hours=3), NOW)
    early = await store.insert(new_event("Early", hours=2), NOW)
    lobby = await store.insert(new_event("Lobby", server="lobby"), NOW)
    assert [r.name for r in await store.in_states(("creating",))] == ["Lobby", "Early", "Late"]

    early = await store.update(
        early.id, discord_id=BIG, start_task=BIG + 1, end_task=2, state="scheduled"
    )
    assert early.discord_id == BIG and early.tasks == (BIG + 1, 2)
    late = await store.update(late.id, discord_id=BIG + 7, state="active")
    await store.update(lobby.id, state="scheduled")
    live = ("scheduled", "active")
    assert [r.name for r in await store.in_states(live)] == ["Lobby", "Early", "Late"]
    assert [r.name for r in await store.in_states(live, "main")] == ["Early", "Late"]
    assert await store.in_states(("creating",)) == []
    assert await store.by_discord(BIG) == early
    assert await store.by_discord(BIG + 7) == late
    assert await store.by_discord(5) is None

    # ended: the timers still look at it until its end outcome is checked
    late = await store.update(late.id, state="completed", checked=("start",))
    assert "Late" in [r.name for r in await store.pending()]
    late = await store.update(late.id, checked=("start", "end"))
    assert late.checked == ("start", "end")
    assert [r.name for r in await store.pending()] == ["Lobby", "Early"]
    await store.update(lobby.id, state="cancelled")
    assert [r.name for r in await store.pending()] == ["Early"]

    moved = NOW + timedelta(days=1)
    early = await store.update(early.id, start=moved, reminders_sent=(600,), revision=1)
    assert early.start == moved and early.reminders_sent == (600,) and early.revision == 1
    await store.delete(early.id)
    assert await store.get(early.id) is None and await store.by_discord(BIG) is None


async def test_an_unknown_column_changes_nothing(store_db: Database) -> None:
    store = GuildEventStore(store_db)
    row = await store.insert(new_event(), NOW)
    with pytest.raises(KeyError):
        await store.update(row.id, name="x", rowid=3)
    assert await store.get(row.id) == row


async def test_a_discord_id_bound_twice_is_refused_and_said(store_db: Database) -> None:
    store = GuildEventStore(store_db)
    first = await store.insert(new_event("First"), NOW)
    second = await store.insert(new_event("Second"), NOW)
    await store.update(first.id, discord_id=BIG)
    with pytest.raises(ValidationError, match="already bound to the event 'First'"):
        await store.update(second.id, discord_id=BIG, state="scheduled")
    assert await store.get(second.id) == second  # nothing of the refused change was kept
    assert (await store.by_discord(BIG)) == await store.get(first.id)


async def test_two_processes_binding_one_discord_event_bind_it_once(store_db: Database) -> None:
    """Two Database objects (two processes' engines) on one database race to bind the same
    Discord event id to their own rows: one wins, the other is told and changes nothing."""
    other_db = Database(store_db.url.render_as_string(hide_password=False))
    try:
        stores = (GuildEventStore(store_db), GuildEventStore(other_db))
        for round_ in range(5):
            rows = [await s.insert(new_event(f"E{round_}.{i}"), NOW) for i, s in enumerate(stores)]
            discord_id = BIG + round_
            outcomes = await asyncio.gather(
                *(
                    s.update(r.id, discord_id=discord_id, state="scheduled")
                    for s, r in zip(stores, rows, strict=True)
                ),
                return_exceptions=True,
            )
            won = [o for o in outcomes if not isinstance(o, BaseException)]
            lost = [o for o in outcomes if isinstance(o, BaseException)]
            assert len(won) == 1 and len(lost) == 1, outcomes
            assert isinstance(lost[0], ValidationError)
            assert await stores[0].by_discord(discord_id) == won[0]
            bound = await stores[0].in_states(("scheduled",))
            assert [r.discord_id for r in bound].count(discord_id) == 1
    finally:
        await other_db.close()
