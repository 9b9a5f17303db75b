# ruff: noqa: RUF001  (Chinese text uses full-width punctuation on purpose)
"""Languages on /event and the crash-restore alert: replies and errors in the interaction's
language, reminders and event alerts in the guild's, the in-game default texts in the server's,
and state words translated where they are shown while the stored ones stay English."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest

from bot.background.crash_guard import CrashGuard, RestoreReport
from bot.config import ServerConfig
from bot.i18n import lazy, use_locale
from bot.minecraft.rcon import RconClient
from bot.services import ServerServices, Services
from bot.store.audit import AuditStore
from bot.store.ledger import Pending
from bot.testkit.harness import ALERT_CHANNEL, MOD, Harness, make_settings
from tests.cogs.discord_events_fixture import NOW, EventHarness, event_harness

ZH = "zh-CN"


@pytest.fixture
async def ev(tmp_path: Path) -> AsyncIterator[EventHarness]:
    async for h in event_harness(tmp_path):
        yield h


@pytest.fixture
async def ev_zh(tmp_path: Path) -> AsyncIterator[EventHarness]:
    """A guild whose preferred locale is zh-CN, on a server whose players read Chinese."""
    async for h in event_harness(tmp_path, server_locale="zh_CN", guild_locale=ZH):
        yield h


async def test_a_chinese_moderator_gets_the_reply_and_embed_in_chinese(ev: EventHarness) -> None:
    reply = await ev.run_in(ZH, "event create", MOD, name="Build Battle", start="in 2h")
    assert reply.ephemeral
    assert reply.text.startswith("活动 #1 **Build Battle** 已创建：Discord 活动 "), reply.text
    assert "它的开始和结束任务已在 main 上计划。" in reply.text
    [embed] = reply.embeds
    fields = {f["name"]: f["value"] for f in embed["fields"]}
    assert fields["状态"] == "已计划" and fields["感兴趣"] == "0"
    assert fields["开始任务"].endswith("\n生效中"), fields  # the planned task's state word
    assert embed["footer"]["text"] == "倒计时 10m, 1m；提醒 无"
    [row] = await ev.cog.events.store.in_states(("scheduled",))
    assert row.state == "scheduled"  # stored in English whoever asked
    listed = await ev.run_in(ZH, "event list", MOD)
    [embed] = listed.embeds
    assert embed["title"] == "1 个活动"
    assert "，已计划，0 人感兴趣，在 main" in embed["description"], embed


async def test_the_same_commands_in_english_stay_english(ev: EventHarness) -> None:
    reply = await ev.run_in("en-US", "event create", MOD, name="Build Battle", start="in 2h")
    assert reply.text.startswith("Event #1 **Build Battle** made: Discord event "), reply.text
    fields = {f["name"]: f["value"] for f in reply.embeds[0]["fields"]}
    assert fields["state"] == "scheduled" and fields["start task"].endswith("\nactive")
    error = await ev.run_in("en-US", "event create", MOD, name="   ", start="in 1h")
    assert error.text == "The event name is empty: give it 1 to 100 characters."


@pytest.mark.parametrize(
    ("options", "sentence"),
    [
        ({"name": "   "}, "活动名称为空：请填写 1 到 100 个字符。"),
        ({"name": "x" * 101}, "活动名称长 101 个字符；Discord 最多允许 100 个。"),
        ({"reminders": "3h"}, "提醒时间 3h 比距开始的时间（2h）还长：无法提前这么久发送。"),
        ({"repeat": "30m"}, "活动持续 1h，但每 30m 重复一次：下一次会在上一次结束前开始。"),
    ],
)
async def test_a_chinese_moderator_is_refused_in_chinese(
    ev: EventHarness, options: dict[str, object], sentence: str
) -> None:
    values: dict[str, object] = {"name": "Build Battle", "start": "in 2h", **options}
    reply = await ev.run_in(ZH, "event create", MOD, **values)
    assert reply.ephemeral and reply.text == sentence, reply.text
    assert not ev.discord.scheduled.requests


async def test_unknown_and_finished_events_are_refused_in_chinese(ev: EventHarness) -> None:
    reply = await ev.run_in(ZH, "event show", MOD, event="#9")
    assert reply.text == "没有活动 '#9'：请用 /event list 查看编号。"
    await ev.run("event create", MOD, name="Build Battle", start="in 2h")
    await ev.run("event cancel", MOD, event="1")
    again = await ev.run_in(ZH, "event cancel", MOD, event="1")
    assert again.text == "'Build Battle' 已经是已取消状态。", again.text


async def test_reminders_speak_the_guilds_language_and_players_the_servers(
    ev_zh: EventHarness,
) -> None:
    # an English moderator makes it: the members and the players still read Chinese
    reply = await ev_zh.run_in(
        "en-US", "event create", MOD, name="Build Battle", start="in 2h", reminders="1h"
    )
    assert reply.text.startswith("Event #1 **Build Battle** made"), reply.text
    start_task, end_task = ev_zh.tasks.active()
    assert json.loads(start_task.command.removeprefix("tellraw @a ")) == [
        {"text": "[活动] ", "color": "gold"},
        {"text": "Build Battle 现在开始！", "color": "white"},
    ]
    assert "Build Battle 已结束，感谢参与！" in end_task.command
    await ev_zh.advance(3600)
    reminder = ev_zh.posts(ALERT_CHANNEL)[-1].payload["content"]
    stamp = int((NOW + timedelta(hours=2)).timestamp())
    assert reminder == (
        f"提醒：**Build Battle** 将于<t:{stamp}:R>（<t:{stamp}:F>）在 mc.example.org 开始。"
        " 还没有人点击“感兴趣”。"
    )


async def test_an_event_alert_is_in_the_guilds_language(ev_zh: EventHarness) -> None:
    await ev_zh.run("event create", MOD, name="Build Battle", start="in 2h")
    ev_zh.clock.advance(2 * 3600)
    ev_zh.tasks.run_due(outcome="failed: unknown_function")
    await ev_zh.advance(31)
    alert = ev_zh.posts(ALERT_CHANNEL)[-1].payload["embeds"][0]
    assert alert["title"] == "活动出现问题"
    assert alert["description"] == (
        "活动 **Build Battle**（#1，main）：它的开始命令没有正常运行：失败：unknown_function。"
    )


async def test_a_move_in_discord_is_noticed_in_the_guilds_language(ev_zh: EventHarness) -> None:
    await ev_zh.run("event create", MOD, name="Build Battle", start="in 2h")
    [live] = ev_zh.discord.scheduled.live()
    later = NOW + timedelta(hours=3)
    await ev_zh.discord.scheduled.move(int(live["id"]), later, later + timedelta(hours=1))
    notice = ev_zh.posts(ALERT_CHANNEL)[-1].payload["embeds"][0]
    assert notice["title"] == "活动已变更"
    assert (
        f"它在 Discord 中被改了时间：任务现在于 <t:{int(later.timestamp())}:F>（开始）"
        in (notice["description"])
    )


# -- the crash guard's restore alert ---------------------------------------------------------


async def alerts_harness(tmp_path: Path, guild_locale: str) -> Harness:
    config = ServerConfig(name="alpha", rcon_password="x")  # type: ignore[arg-type]
    settings = make_settings(tmp_path, [config])
    rcon = RconClient("127.0.0.1", 9, "x")  # never used: the alert only reads the event
    server = ServerServices(config, rcon, None, None, None, None, "log")  # type: ignore[arg-type]
    audit = AuditStore(tmp_path / "audit.sqlite3")
    harness = Harness(settings, Services(settings, {"alpha": server}, audit))
    harness.discord.guild_locale = guild_locale
    return await harness.start()


def restore_report() -> RestoreReport:
    """A restore as the crash guard words it: the items are made before any reader is known."""
    report = RestoreReport(game_time=120)
    report.reason = CrashGuard._reason(Pending(300, 7, "its game time went back", 0), 120)
    report.add("rescheduled", lazy("{id} (due {due})", id="lost1", due=400))
    report.add("rescheduled", lazy("{id} (paused, {ticks} left)", id="lost2", ticks=80))
    report.add("failed", lazy("{id}: the pack no longer has it", id="gone"))
    return report


@pytest.mark.parametrize("guild_locale", [ZH, "en-US"])
async def test_the_restore_alert_is_in_the_guilds_language(
    tmp_path: Path, guild_locale: str
) -> None:
    harness = await alerts_harness(tmp_path, guild_locale)
    try:
        cog = harness.bot.get_cog("Alerts")
        server = harness.services.servers["alpha"]
        with use_locale("en"):  # made in English (the guard's task has no reader)...
            event = restore_report().event("alpha", 1)
        await cog.handle(server, event)  # type: ignore[union-attr]
        await cog.flush(ALERT_CHANNEL)  # type: ignore[union-attr]
        [post] = harness.posts(ALERT_CHANNEL)
        [embed] = post.payload["embeds"]
        fields = {f["name"]: f["value"] for f in embed["fields"]}
    finally:
        await harness.close()
    if guild_locale == ZH:  # ...said in the guild's
        assert embed["title"] == "服务器已从上次存档恢复：任务已还原"
        assert fields["任务"] == "`3 个任务`"
        assert fields["已重新计划"] == "`lost1（到期于 400）, lost2（已暂停，剩余 80 刻）`"
        assert fields["无法还原"] == "`gone：数据包中已没有它`"
        assert fields["原因"] == (
            "`它的游戏时间倒退了：机器人已见到游戏时间 300，服务器却回到了 120`"
        )
    else:
        assert embed["title"] == "Server came back from its last save: tasks restored"
        assert fields["task"] == "`3 tasks`"
        assert fields["scheduled again"] == "`lost1 (due 400), lost2 (paused, 80 left)`"
        assert fields["why"] == (
            "`its game time went back: it came back at game time 120 after the bot had seen 300`"
        )
