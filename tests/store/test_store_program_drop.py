"""ProgramStore.drop on both engines: a saved version no run started with is removed (the next
save takes its number again); one a run uses stays."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.store.db import Database
from bot.store.programs import ProgramStore
from bot.store.schedules import Creator

MOD = Creator(7002, "mod#0001")
NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


async def test_a_version_without_runs_is_dropped_and_one_with_a_run_stays(
    store_db: Database,
) -> None:
    store = ProgramStore(store_db)
    first = await store.save("evening", '[{"run": "say 1"}]', MOD, NOW)
    second = await store.save("evening", '[{"run": "say 2"}]', MOD, NOW)
    assert await store.drop(second)
    assert not await store.drop(second)  # gone already: nothing changed
    latest = await store.latest("evening")
    assert latest is not None and latest.version == 1
    again = await store.save("evening", '[{"run": "say 3"}]', MOD, NOW)
    assert again.version == 2
    await store.start(first, "sim", NOW, 1, MOD, NOW)
    assert not await store.drop(first)  # a run started with it
    kept = await store.version("evening", 1)
    assert kept is not None and kept.steps == '[{"run": "say 1"}]'
