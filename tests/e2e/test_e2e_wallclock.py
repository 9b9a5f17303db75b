"""Wall-clock schedules through the slash commands: real interaction payloads through
discord.py's CommandTree (bot/testkit/harness.py), real services over TCP RCON to mcsim with the
pack, the scheduler on a manual clock (these tests never wait for wall-clock time)."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from bot.testkit.harness import ALERT_CHANNEL, MOD, NOBODY, Harness
from bot.times.clock import ManualClock
from mcsim.server import Server


def stored(tmp_path: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(tmp_path / "data" / "bot.sqlite3") as db:
        return [
            (str(r[0]), str(r[1]))
            for r in db.execute("SELECT task_id, state FROM schedules ORDER BY id")
        ]


def raw(reply: object) -> str:
    """The payloads as sent (Discord timestamps unrendered)."""
    return str([s.data for s in reply.messages])  # type: ignore[attr-defined]


async def test_plan_list_show_pause_resume_cancel(
    wall: tuple[Harness, ManualClock], mc: Server, tmp_path: Path
) -> None:
    live, clock = wall
    scheduler = live.services.scheduler
    assert scheduler is not None
    reply = await live.run(
        "schedule",
        MOD,
        run="scoreboard players add #runs wc 1",
        id="raid",
        when="fri 20:00",
        announce="5m",
    )
    assert reply.ephemeral and "Planned `raid` on main for" in reply.text
    due = 1_797_015_600  # Friday 2026-12-11 20:00 in Berlin (the bot's DOOM_TIMEZONE)
    assert f"<t:{due}:F>" in raw(reply) and f"<t:{due}:R>" in raw(reply)
    assert stored(tmp_path) == [("raid", "active")]
    await live.run(
        "schedule", MOD, run="say hourly", id="hourly", repeat="0 * * * *", timezone="UTC"
    )
    listed = await live.run("list", MOD, which="planned")
    body = raw(listed)
    assert "planned on main: 2 schedule(s)" in body
    assert f"`raid` <t:{due}:F> (<t:{due}:R>), once" in body
    assert "`hourly` <t:1797001200:F>" in body and "cron `0 * * * *` (UTC)" in body
    assert "then <t:1797004800:f>, <t:1797008400:f>" in body  # the next runs of a repeating row
    shown = await live.run("show", MOD, id="hourly")
    fields = {f["name"]: f["value"] for f in shown.embeds[0]["fields"]}
    assert shown.embeds[0]["title"] == "Planned `hourly`"
    assert fields["next runs"].count("<t:") == 6  # three runs, each F and R
    assert fields["if missed"] == "skip"
    # id autocomplete offers planned rows and the pack's queue
    await live.run("schedule", MOD, run="say queued", time=999, unit="tick", id="rather-queued")
    offered = await live.autocomplete("cancel", "id", MOD, id="r")
    assert [c["value"] for c in offered][:2] == ["raid", "rather-queued"]
    zones = await live.autocomplete("schedule", "timezone", MOD, run="x", timezone="europe/ber")
    assert [c["value"] for c in zones] == ["Europe/Berlin"]
    assert "Paused the planned schedule `raid`" in (await live.run("pause", MOD, id="raid")).text
    assert "is paused: it cannot be paused" in (await live.run("pause", MOD, id="raid")).text
    assert stored(tmp_path)[0] == ("raid", "paused")
    resumed = await live.run("resume", MOD, id="raid")
    assert "Resumed the planned schedule `raid`: next run" in resumed.text
    assert f"next run <t:{due}:F> (<t:{due}:R>)." in raw(resumed)  # a time to wait for: how far
    assert (
        "Cancelled the planned schedule `raid`" in (await live.run("cancel", MOD, id="raid")).text
    )
    assert stored(tmp_path)[0] == ("raid", "cancelled")
    # the game-time task of the same id family is untouched; the planned one is gone
    assert "No task `raid`" in (await live.run("cancel", MOD, id="raid")).text
    # nobody else may read or change planned rows
    assert "hourly" not in raw(await live.run("list", NOBODY, which="planned"))
    clock.advance(1)


async def test_cancel_all_takes_the_planned_row_too(
    wall: tuple[Harness, ManualClock], tmp_path: Path
) -> None:
    live, _ = wall
    await live.run("schedule", MOD, run="say a", id="both", when="in 1h")
    await live.run("schedule", MOD, run="say b", time=999, unit="tick", id="both")
    asked = await live.run("cancel_all", MOD, id="both")
    prompt = asked.messages[-1]
    assert "Cancel all 1 task(s) `both` and its planned schedule on main?" in raw(asked)
    message_id = prompt.message_id
    assert message_id is not None
    done = await live.press(message_id, "Confirm", MOD)
    assert "Cancelled 1 task(s) `both` and its planned schedule on main." in raw(done)
    assert stored(tmp_path) == [("both", "cancelled")]


async def test_refusals_name_the_problem_and_store_nothing(
    wall: tuple[Harness, ManualClock], tmp_path: Path
) -> None:
    live, _ = wall
    cases = [
        ({"time": 5, "when": "in 5m"}, "`when` set a wall-clock time and `time` a game time"),
        ({"every": 100, "repeat": "1h"}, "`repeat` set a wall-clock time and `every`"),
        ({"at": 5000, "timezone": "UTC", "when": "20:00"}, "and `at` a game time"),
        ({"unit": "second", "when": "in 5m"}, "and `unit` a game time"),
        ({"when": "2026-02-30 20:00"}, "2026-02-30 is not a date that exists"),
        ({"when": "in 5m", "timezone": "Moon/Base"}, "'Moon/Base' is not a time zone"),
        ({"repeat": "0 0 30 2 *"}, "is not a valid cron expression"),
        ({"when": "in 1m", "announce": "5m"}, "is longer than the delay"),
        ({"announce": "1m"}, "Give `when` (a wall-clock time) or `repeat`"),
        ({"when": "in 5m", "run": "stop"}, "stop"),
    ]
    for options, sentence in cases:
        request: dict[str, object] = {"run": "say hi", "id": "nope", **options}
        reply = await live.run("schedule", MOD, **request)
        assert reply.ephemeral and sentence in reply.text, (options, reply.text)
    assert stored(tmp_path) == []
    _, total = await live.services.servers["main"].pack.list_tasks("queue")
    assert total == 0


async def test_a_game_time_task_on_an_empty_server_suggests_when(
    wall: tuple[Harness, ManualClock],
) -> None:
    live, _ = wall
    reply = await live.run("schedule", MOD, run="say later", time=5, unit="second", id="g")
    assert "Scheduled `g` on main." in reply.text
    assert "nobody is online on main and it pauses when empty" in reply.text
    assert "use `when`" in reply.text


async def test_a_missed_run_is_posted_to_the_alert_channel(
    wall: tuple[Harness, ManualClock], mc: Server
) -> None:
    live, clock = wall
    scheduler = live.services.scheduler
    assert scheduler is not None
    await live.run(
        "schedule", MOD, run="scoreboard players add #runs wc 1", id="late", when="in 1m"
    )
    await scheduler.stop()  # the bot is down over its time, and longer than max_late
    clock.advance(60 + 601)
    await scheduler.start()
    await scheduler.settled()
    for _ in range(500):  # the alerts cog batches for 0.05 s, then posts
        if live.posts(ALERT_CHANNEL):
            break
        await asyncio.sleep(0.02)
    post = live.posts(ALERT_CHANNEL)[0]
    embed = post.data["embeds"][0]
    assert embed["title"] == "Planned task missed"
    fields = {f["name"]: f["value"] for f in embed["fields"]}
    assert fields["task"] == "`late`" and "game time" not in fields
    assert "not running" in fields["reason"]
    assert mc.score("#runs", "wc") is None


async def test_a_chinese_moderator_plans_lists_and_is_refused_in_chinese(
    wall: tuple[Harness, ManualClock], tmp_path: Path
) -> None:
    live, _ = wall
    zh = "zh-CN"
    refused = await live.run_in(
        zh, "schedule", MOD, run="say hi", id="nope", when="in 5m", timezone="Moon/Base"
    )
    assert refused.ephemeral and "'Moon/Base' 不是已知的时区" in refused.text, refused.text
    mixed = await live.run_in(
        zh, "schedule", MOD, run="say hi", id="nope", time=5, unit="tick", when="in 5m"
    )
    assert "`when` 设定的是现实时间，`time` 设定的是游戏时间" in mixed.text, mixed.text  # noqa: RUF001
    assert stored(tmp_path) == []
    due = 1_797_015_600  # Friday 2026-12-11 20:00 in Berlin
    reply = await live.run_in(zh, "schedule", MOD, run="say raid", id="raid", when="fri 20:00")
    assert reply.text.startswith("已在 main 上按现实时间计划 `raid`"), reply.text
    assert f"<t:{due}:F>" in raw(reply)
    [embed] = reply.embeds
    fields = {f["name"]: f["value"] for f in embed["fields"]}
    assert embed["title"] == "已按现实时间计划" and fields["重复"] == "一次"
    assert fields["错过时"] == "补运行一次", fields
    assert fields["状态"] == "生效中", fields  # the stored "active", as this reader reads it
    listed = raw(await live.run_in(zh, "list", MOD, which="planned"))
    assert "main 的计划：1 个" in listed and "时间按你所在的时区显示" in listed, listed  # noqa: RUF001
    await live.run_in(zh, "pause", MOD, id="raid")
    listed = raw(await live.run_in(zh, "list", MOD, which="planned"))
    assert "`raid` 已暂停，一次" in listed and "paused" not in listed, listed  # noqa: RUF001
    assert stored(tmp_path) == [("raid", "paused")]  # the stored word stays English
    assert "`raid` paused, once" in raw(await live.run("list", MOD, which="planned"))
    # English stays English for the next reader (the locale is per interaction)
    en = await live.run(
        "schedule", MOD, run="say hi", id="nope", when="in 5m", timezone="Moon/Base"
    )
    assert "'Moon/Base' is not a time zone I know" in en.text, en.text


async def test_a_berlin_time_is_a_discord_timestamp_and_reads_with_its_zone(
    wall: tuple[Harness, ManualClock], mc: Server
) -> None:
    live, _clock = wall  # Fri 2026-12-11 14:40 UTC
    reply = await live.run(
        "schedule", MOD, run="say raid", id="raid", when="fri 20:00", timezone="Europe/Berlin"
    )
    due = 1_797_015_600  # 20:00 in Berlin is 19:00 UTC
    content = reply.messages[0].data["content"]
    assert f"for <t:{due}:F> (<t:{due}:R>)." in content, content
    # the harness reads it as a person in UTC would: the instant in the one console format
    assert "Planned `raid` on main for Fri, Dec 11, 2026, 7:00\u202fPM UTC (" in reply.text, (
        reply.text
    )
    assert "<t:" not in reply.text
    next_runs = next(
        f["value"] for e in reply.embeds for f in e["fields"] if f["name"] == "next runs"
    )
    assert next_runs.startswith(f"<t:{due}:F>"), next_runs
