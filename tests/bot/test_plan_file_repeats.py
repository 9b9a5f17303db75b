"""The plan file's `repeats:`: the server's own program repeats as /program repeat's options; a
round trip into a fresh bot is byte-identical, an import leaves identical ones, replaces a
program's changed ones, refuses a wrong one (the whole file, nothing changed) and undoes its
repeats when a later one fails. Real stores, mcsim over TCP RCON."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from bot import errors
from bot.operations import plan_repeats, registry
from bot.store.program_repeats import RepeatStore
from tests.bot.test_operations import MOD
from tests.bot.test_plan_file_programs import Bot, bots

__all__ = ["bots"]  # the fixture, shared with the programs' file

# an interval's next start, two days on at 20:00 UTC: its grid, kept by the file
WHEN = (datetime.now(UTC) + timedelta(days=2)).strftime("%Y-%m-%d 20:00")
PLAN = f"""\
version: 1
server: main
programs:
- name: evening
  steps:
  - run: say evening starts
- name: morning
  steps:
  - run: say morning starts
repeats:
- program: evening
  repeat: 0 20 * * 5
  timezone: Europe/Berlin
  dst_repeated: both
- program: evening
  when: {WHEN}
  repeat: 1d
- program: morning
  repeat: 0 7 * * *
  timezone: America/New_York
"""


async def active(bot: Bot) -> list[tuple[int, str, str]]:
    found = await RepeatStore(bot.ops.services.db).repeats(("active",))
    return [(r.id, r.program, r.repeat) for r in found]


async def test_a_round_trip_is_byte_identical_and_an_identical_file_changes_nothing(
    bots: Callable[..., Awaitable[Bot]],
) -> None:
    first = await bots()
    dry = await first.load(PLAN, dry_run=True)
    assert "add: repeats[1] (evening)\nadd: repeats[2] (evening)\nadd: repeats[3] (morning)" in (
        dry.text
    ), dry.text
    assert await active(first) == []
    await first.load(PLAN)
    made = await active(first)
    assert [(p, r) for _n, p, r in made] == [
        ("evening", "0 20 * * 5"),
        ("evening", "1d"),
        ("morning", "0 7 * * *"),
    ]
    exported = await first.exported()
    assert exported == PLAN
    fresh = await bots()
    await fresh.load(exported)
    assert await fresh.exported() == exported
    again = await fresh.load(exported)
    assert [v for v, label in again.steps if label.startswith("repeats")] == ["leave"] * 3
    assert len(await active(fresh)) == 3
    # one of evening's changed: evening's are replaced, morning's is left
    changed = exported.replace("repeat: 1d", "repeat: 2d")
    done = await fresh.load(changed)
    assert "change: repeats[2] (evening)" in done.text and "leave as it is: repeats[3]" in (
        done.text
    ), done.text
    now = await active(fresh)
    assert [(p, r) for _n, p, r in now] == [
        ("morning", "0 7 * * *"),
        ("evening", "0 20 * * 5"),
        ("evening", "2d"),
    ]
    assert await fresh.exported() == changed


async def test_a_group_repeat_is_not_in_a_servers_file(
    bots: Callable[..., Awaitable[Bot]],
) -> None:
    bot = await bots()
    await bot.load(PLAN.split("repeats:")[0])
    options = {"name": "evening", "repeat": "1d", "server": "all"}
    await registry.run(bot.ops, MOD, "program repeat", options)
    mine = {**options, "server": "main", "when": WHEN, "timezone": "Europe/Berlin"}
    made = await registry.run(bot.ops, MOD, "program repeat", mine)
    berlin = datetime.strptime(WHEN, "%Y-%m-%d %H:%M").replace(tzinfo=ZoneInfo("Europe/Berlin"))
    assert datetime.fromisoformat(made.facts["next"][0]) == berlin
    exported = await bot.exported()
    expected = f"- program: evening\n  when: {WHEN}\n  repeat: 1d\n  timezone: Europe/Berlin\n"
    assert exported.endswith(f"repeats:\n{expected}"), exported


@pytest.mark.parametrize(
    ("old", "new", "said"),
    [
        (
            "- program: morning",
            "- program: noon",
            "repeats[3] (noon) is refused: There is no program `noon`",
        ),
        ("repeat: 1d", "repeat: 1x", "repeats[2] (evening) is refused: "),
        ("timezone: Europe/Berlin", "timezone: Mars/Base", "is not a time zone I know"),
        (
            "run: say morning starts",
            "run: give @a diamond_swordd 1",
            "repeats[3] (morning) is refused: Step 1",
        ),
    ],
)
async def test_a_wrong_repeat_refuses_the_whole_file(
    bots: Callable[..., Awaitable[Bot]], old: str, new: str, said: str
) -> None:
    bot = await bots()
    assert PLAN.count(old) == 1, old
    with pytest.raises(errors.ValidationError) as refused:
        await bot.load(PLAN.replace(old, new))
    assert said in str(refused.value), str(refused.value)
    assert "Nothing was changed." in str(refused.value)
    assert await active(bot) == [] and await bot.versions() == []


async def test_an_import_failing_at_a_repeat_undoes_its_repeats(
    bots: Callable[..., Awaitable[Bot]], monkeypatch: pytest.MonkeyPatch
) -> None:
    bot = await bots()
    await bot.load(PLAN)
    before = await active(bot)
    make = plan_repeats.make
    calls = 0

    async def failing(*args: object) -> object:
        nonlocal calls
        calls += 1
        if calls == 2:
            raise errors.ValidationError("the database went away")
        return await make(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(plan_repeats, "make", failing)
    with pytest.raises(errors.ImportFailed, match="undid"):
        await bot.load(PLAN.replace("repeat: 1d", "repeat: 2d"))
    assert await active(bot) == before  # evening's two started again, the one made removed
