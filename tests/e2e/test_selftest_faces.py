"""/selftest and the selftest at the end of /setup, through discord.py's own CommandTree (the
harness), on the bot's services over TCP RCON to mcsim at 20 TPS."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from bot.minecraft.selftest import SelftestResult
from bot.minecraft.selftest.result import Check
from bot.testkit.harness import ADMIN, ALERT_CHANNEL, AUDIT_CHANNEL, MOD, NOBODY, Harness
from cogs.admin import MAX_MESSAGE, selftest_message
from mcsim.server import Server
from tests.e2e.selftest_sim import Live, assert_clean, bot_services, reset, running_server


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(tmp_path_factory.mktemp("faces") / "world") as server:
        yield server


@pytest.fixture
async def bot_on_live(shared: Server, tmp_path: Path) -> AsyncIterator[tuple[Harness, Live]]:
    reset(shared)
    async with bot_services(shared, tmp_path) as live:
        harness = await Harness(live.services.settings, live.services).start()
        alerts = harness.bot.get_cog("Alerts")
        assert alerts is not None
        alerts.batch_window = 0.1  # type: ignore[attr-defined]
        try:
            yield harness, live
        finally:
            await harness.discord.close()
    reset(shared)


async def test_selftest_command_shows_every_line_to_the_admin(
    bot_on_live: tuple[Harness, Live],
) -> None:
    harness, live = bot_on_live
    reply = await harness.run("selftest", ADMIN)
    assert reply.ephemeral
    text = reply.text
    for check in ("pack version", "marker task", "event source", "retry counts", "cleanup"):
        assert f"PASS {check}" in text, text
    assert "FAIL" not in text, text
    # the measured TPS is the host's as much as the server's (a loaded CI machine reads < 18):
    # it is the one check that may warn here
    warnings = [line for line in text.splitlines() if line.startswith("WARN ")]
    assert all(line.startswith("WARN measured TPS") for line in warnings), text
    summary = "passed in " if not warnings else "passed, 1 warning in "
    assert f"selftest of 'main' {summary}" in text, text
    assert_clean(live)
    # its own retry_exhausted event is not an alert; the run is in the audit log
    assert harness.posts(ALERT_CHANNEL) == []
    rows = await live.services.audit.mutations(server="main")
    assert [r.action for r in rows] == ["selftest"]
    await harness.bot.audit_posted()
    assert [p.payload["embeds"][0]["title"] for p in harness.posts(AUDIT_CHANNEL)] == ["/selftest"]


async def test_selftest_answers_a_chinese_admin_in_chinese(
    bot_on_live: tuple[Harness, Live],
) -> None:
    harness, live = bot_on_live
    reply = await harness.run_in("zh-CN", "selftest", ADMIN)
    text = reply.text
    lines = (
        "通过 标记任务：恰好在入队后 20 刻运行",  # noqa: RUF001
        "通过 清理：它的任务、计分项和存储都已移除",  # noqa: RUF001
        "通过 cancel_all 计数：计数 3，移除 3，剩余 0",  # noqa: RUF001
    )
    for line in lines:
        assert line in text, text
    assert "通过 重试次数：retry=2：运行 3 次，每次间隔 5 刻，然后 retry_exhausted" in text  # noqa: RUF001
    assert "'main' 的自检通过" in text and "PASS" not in text and "失败" not in text, text
    assert_clean(live)


@pytest.mark.parametrize("user", [MOD, NOBODY], ids=["moderator", "nobody"])
async def test_selftest_is_for_admins_only(bot_on_live: tuple[Harness, Live], user: object) -> None:
    harness, live = bot_on_live
    # the server ticks at 20 TPS on its own (its command count moves): look at what RCON got
    before = len(live.server.rcon_commands)
    reply = await harness.run("selftest", user)  # type: ignore[arg-type]
    assert reply.text == "You need the admin role to use /selftest."
    sent = list(live.server.rcon_commands)[before:]
    assert not [c for c in sent if "selftest" in c], sent  # no selftest was started


async def test_setup_ends_with_the_selftest(bot_on_live: tuple[Harness, Live]) -> None:
    harness, live = bot_on_live
    reply = await harness.run("setup", ADMIN)
    text = reply.text
    assert "reinstalled" in text and "Not verified" not in text
    assert "PASS pack version" in text and "selftest of 'main' passed" in text, text
    assert_clean(live)


async def test_a_failing_selftest_is_said_in_discord(bot_on_live: tuple[Harness, Live]) -> None:
    harness, live = bot_on_live
    live.server.run("tick freeze")
    reply = await harness.run("selftest", ADMIN)
    assert "FAIL game time: frozen" in reply.text and "FAILED" in reply.text


def test_a_long_report_still_fits_one_message() -> None:
    result = SelftestResult("main", duration=3.0)
    for i in range(40):
        result.checks.append(Check("PASS", f"check {i}", "x" * 80))
    result.checks.append(Check("FAIL", "game time", "frozen: run `tick unfreeze`"))
    message = selftest_message(result)
    assert len(message) <= MAX_MESSAGE
    assert "FAIL game time: frozen: run `tick unfreeze`" in message and "PASS check 39" in message


def test_one_result_reads_in_each_readers_language() -> None:
    """Made once (details are lazy), shown to a Chinese and an English reader."""
    from bot.i18n import lazy, use_locale

    result = SelftestResult("main")
    result.add("FAIL", "marker task", lazy("the pack did not queue the marker task"))
    result.add("WARN", "game time", lazy("not checked: the marker raised no event"))
    with use_locale("zh_CN"):
        assert result.lines() == [
            "失败 标记任务：数据包没有将标记任务加入队列",  # noqa: RUF001
            "警告 游戏时间：未检查：标记任务没有产生事件",  # noqa: RUF001
            "'main' 的自检失败（1 项检查），1 个警告，用时 0.0 秒",  # noqa: RUF001
        ]
    assert result.lines() == [
        "FAIL marker task: the pack did not queue the marker task",
        "WARN game time: not checked: the marker raised no event",
        "selftest of 'main' FAILED (1 check), 1 warning in 0.0 s",
    ]
    assert result.status_of("marker task") == "FAIL"  # the id stays English
