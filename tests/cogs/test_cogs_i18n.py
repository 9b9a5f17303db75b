# ruff: noqa: RUF001  (Chinese text uses full-width punctuation on purpose)
"""Languages through the harness: real interaction payloads with a ``locale`` field, answered in
that language (zh-CN) or in English (en-US, a language without a catalog, an unknown tag); the
command tree's zh-CN localizations within Discord's limits; alerts in DOOM_LOCALE or the guild's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.config import ServerConfig
from bot.discord.slash.translator import valid_name
from bot.events.event import Event
from bot.minecraft.rcon import RconClient
from bot.services import ServerServices, Services
from bot.store.audit import AuditStore
from bot.testkit.harness import ADMIN, ALERT_CHANNEL, MOD, NOBODY, Harness, make_settings

GOLDEN = Path(__file__).with_name("command_tree.json")
ZH = "zh-CN"


def localized(node: dict[str, object], key: str) -> str:
    values = node.get(f"{key}_localizations")
    assert isinstance(values, dict) and ZH in values, (node.get("name"), key)
    text = values[ZH]
    assert isinstance(text, str) and text != node[key], (node.get("name"), key)
    return text


def test_the_golden_tree_localizes_every_name_within_discords_limits() -> None:
    tree = json.loads(GOLDEN.read_text())
    names = set()
    for command in tree.values():
        name = localized(command, "name")
        assert valid_name(name) and len(name) <= 32, name
        assert 1 <= len(localized(command, "description")) <= 100
        names.add(name)
        options = set()
        for option in command.get("options", []):
            option_name = localized(option, "name")
            assert valid_name(option_name) and len(option_name) <= 32, option_name
            assert 1 <= len(localized(option, "description")) <= 100
            options.add(option_name)
            for choice in option.get("choices", []):
                assert 1 <= len(localized(choice, "name")) <= 100
        assert len(options) == len(command.get("options", []))  # no two options alike in zh-CN
    assert len(names) == len(tree)  # no two commands alike in zh-CN


def test_discords_name_rule_is_what_the_translator_enforces() -> None:
    assert valid_name("定时_新编号") and valid_name("cancel-all") and valid_name("列表")
    assert not valid_name("Cancel") and not valid_name("取消 全部") and not valid_name("x" * 33)
    assert not valid_name("") and not valid_name("取消!")


async def test_zh_cn_gets_its_reply_and_embed_in_chinese(bare: Harness) -> None:
    reply = await bare.run_in(ZH, "help", NOBODY)
    [embed] = reply.embeds
    assert embed["title"] == "doom.schedule 命令"
    # each command as Discord shows it to this reader, and the name the console takes too
    assert "**/定时** (/schedule): 在一段游戏时间后运行一条命令。" in embed["description"]
    assert embed["footer"]["text"].startswith("时间均为游戏时间")


async def test_zh_cn_gets_its_errors_in_chinese(bare: Harness) -> None:
    reply = await bare.run_in(ZH, "time", MOD)
    assert reply.ephemeral and reply.text == "尚未配置任何 Minecraft 服务器。"
    refused = await bare.run_in(ZH, "clear", NOBODY)
    assert refused.text == "你需要管理员身份组才能使用 /clear。"
    admin_only = await bare.run_in(ZH, "reload", MOD, extension="cogs.reads")
    assert admin_only.text == "你需要管理员身份组才能使用 /reload。"
    unknown = await bare.run_in(ZH, "reload", ADMIN, extension="cogs.nope")
    assert unknown.text == "未知扩展 'cogs.nope'。"


@pytest.mark.parametrize("locale", ["en-US", "en-GB", "fr", "zh-TW", "xx-YY"])
async def test_other_locales_get_english(bare: Harness, locale: str) -> None:
    reply = await bare.run_in(locale, "help", NOBODY)
    assert reply.embeds[0]["title"] == "doom.schedule commands"
    error = await bare.run_in(locale, "time", MOD)
    assert error.text == "No Minecraft server is configured."


async def test_each_interaction_has_its_own_language(bare: Harness) -> None:
    """The locale is per interaction: a Chinese reader does not switch the next reader's."""
    assert (await bare.run_in(ZH, "time", MOD)).text == "尚未配置任何 Minecraft 服务器。"
    assert (await bare.run("time", MOD)).text == "No Minecraft server is configured."
    assert (await bare.run_in(ZH, "time", MOD)).text == "尚未配置任何 Minecraft 服务器。"


def alert_event(seq: int) -> Event:
    return Event("alpha", seq, "retry_exhausted", "daily", 5000)


async def alerts_harness(tmp_path: Path, *, locale: str | None, guild_locale: str) -> Harness:
    config = ServerConfig(name="alpha", rcon_password="x")  # type: ignore[arg-type]
    settings = make_settings(tmp_path, [config], locale=locale)
    store = AuditStore(tmp_path / "audit.sqlite3")
    rcon = RconClient("127.0.0.1", 9, "x")  # never used: alerts only read events
    server = ServerServices(config, rcon, None, None, None, None, "log")  # type: ignore[arg-type]
    harness = Harness(settings, Services(settings, {"alpha": server}, store))
    harness.discord.guild_locale = guild_locale
    return await harness.start()


@pytest.mark.parametrize(
    ("locale", "guild_locale", "title"),
    [
        ("zh_CN", "en-US", "任务失败：重试次数已用完"),  # DOOM_LOCALE wins
        (None, ZH, "任务失败：重试次数已用完"),  # else the guild's preferred locale
        (None, "en-US", "Task failed: no retries left"),
        ("en", ZH, "Task failed: no retries left"),
    ],
)
async def test_alerts_speak_doom_locale_else_the_guilds(
    tmp_path: Path, locale: str | None, guild_locale: str, title: str
) -> None:
    harness = await alerts_harness(tmp_path, locale=locale, guild_locale=guild_locale)
    try:
        cog = harness.bot.get_cog("Alerts")
        server = harness.services.servers["alpha"]
        await cog.handle(server, alert_event(1))  # type: ignore[union-attr]
        await cog.flush(ALERT_CHANNEL)  # type: ignore[union-attr]
        [post] = harness.posts(ALERT_CHANNEL)
        [embed] = post.payload["embeds"]
        assert embed["title"] == title
        chinese = title.startswith("任务")
        assert embed["footer"]["text"] == ("事件 1" if chinese else "event 1")
        assert [f["name"] for f in embed["fields"]][:3] == (
            ["任务", "服务器", "游戏时间"] if chinese else ["task", "server", "game time"]
        )
    finally:
        await harness.close()


async def test_the_console_takes_the_names_in_its_language(bare: Harness) -> None:
    from bot.i18n import use_locale
    from console.session import parse_line

    registry = bare.bot.ops.registry

    def parsed(line: str) -> tuple[str, dict[str, object]]:
        command, values = parse_line(line, registry)
        return command.name, values

    with use_locale("zh_CN"):
        line = "/定时 命令:say 你好 时长:5 单位:分钟 编号:greet"
        assert parsed(line) == (
            "schedule",
            {"run": "say 你好", "time": 5, "unit": "minute", "id": "greet"},
        )
        mixed = parsed("/schedule run:say hi 时长:2 unit:游戏日")
        assert mixed == ("schedule", {"run": "say hi", "time": 2, "unit": "game_day"})
        with pytest.raises(ValueError, match="/schedule 缺少 run"):
            parsed("/定时 时长:5")
    with pytest.raises(ValueError, match="unknown command /定时"):
        parsed("/定时 命令:say hi")  # an English console knows only English
