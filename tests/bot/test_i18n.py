# ruff: noqa: RUF001  (Chinese text uses full-width punctuation on purpose)
"""The catalogs are complete and in step with the code, a broken catalog is caught,
and texts are picked and formatted for the right locale."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from babel.messages.pofile import read_po

from bot import i18n
from bot.catalogs.cli import TEMPLATE, extract, placeholders, problems
from bot.config import ServerConfig
from bot.errors import CommandParseError, CommandRefused
from bot.i18n import _, formats, lazy, ngettext, use_locale
from bot.minecraft.command_check import CommandChecker

ZH = TEMPLATE.parent / "zh_CN" / "LC_MESSAGES" / "messages.po"


def ids(catalog: object) -> set[tuple[str | None, str]]:
    return {(m.context, m.id if isinstance(m.id, str) else m.id[0]) for m in catalog if m.id}  # type: ignore[attr-defined]


def test_zh_cn_translates_every_message_with_the_same_placeholders() -> None:
    assert problems(ZH) == []
    with ZH.open("rb") as f:
        catalog = read_po(f, locale="zh_CN")
    with TEMPLATE.open("rb") as f:
        template = read_po(f)
    assert ids(template) <= ids(catalog)
    assert len(ids(template)) > 200  # every text of the bot, not a handful


def test_the_template_is_in_step_with_the_code() -> None:
    """A text wrapped in the code but not extracted (run `python -m bot.catalogs update`) fails."""
    with TEMPLATE.open("rb") as f:
        recorded = ids(read_po(f))
    assert ids(extract()) == recorded


def test_the_dashboard_templates_texts_are_in_the_template() -> None:
    """babel.cfg maps the Jinja templates: their `_()` texts are extracted with the code's."""
    with TEMPLATE.open("rb") as f:
        template = read_po(f)
    where = {path for m in template if m.id == "Schedule a command" for path, _line in m.locations}
    assert "web/templates/schedule_form.html" in where
    plural = template.get(("{count} task", "{count} tasks"))
    assert plural is not None and plural.locations[0][0].startswith("web/templates/")


def test_a_missing_translation_and_a_changed_placeholder_are_caught(tmp_path: Path) -> None:
    broken = tmp_path / "zh_CN" / "LC_MESSAGES" / "messages.po"
    broken.parent.mkdir(parents=True)
    shutil.copy(ZH, broken)
    text = broken.read_text(encoding="utf-8")
    text = text.replace(
        'msgstr "已在 {server} 上计划 `{id}`。"', 'msgstr "已在 {服务器} 上计划 `{id}`。"'
    )
    text = text.replace('msgstr "已暂停 `{id}`。"', 'msgstr ""')
    broken.write_text(text, encoding="utf-8")
    found = problems(broken)
    assert any("Scheduled `{id}` on {server}." in p and "placeholders" in p for p in found)
    assert any("Paused `{id}`." in p and "not translated" in p for p in found)
    assert len(found) == 2


def test_placeholders_are_read_as_str_format_reads_them() -> None:
    assert placeholders("{n} (every {delay} t)") == {"n", "delay"}
    assert placeholders("{{literal}} {x:>3}") == {"x:>3"}
    assert placeholders("{unbalanced") == {"<unbalanced braces>"}


@pytest.mark.parametrize(
    ("tag", "locale"),
    [
        ("zh-CN", "zh_CN"),
        ("zh_CN.UTF-8", "zh_CN"),
        ("zh", "zh_CN"),
        ("zh-SG", "zh_CN"),
        ("zh-TW", None),
        ("zh_HK.UTF-8", None),
        ("en-US", "en"),
        ("en-GB", "en"),
        ("fr", None),
        ("C", None),
        ("", None),
        (None, None),
        ("xx-YY", None),
    ],
)
def test_negotiate_maps_discord_and_system_tags_to_a_catalog(
    tag: str | None, locale: str | None
) -> None:
    assert i18n.negotiate(tag) == locale


def test_the_console_locale_is_doom_locale_then_the_system_then_english() -> None:
    assert i18n.console_locale("zh_CN", {"LANG": "en_US.UTF-8"}) == "zh_CN"
    assert i18n.console_locale(None, {"LANG": "zh_CN.UTF-8"}) == "zh_CN"
    assert i18n.console_locale(None, {"LANGUAGE": "zh_CN:en", "LANG": "C"}) == "zh_CN"
    assert i18n.console_locale("fr", {"LANG": "de_DE.UTF-8"}) == "en"
    assert i18n.console_locale(None, {}) == "en"


def test_lookups_follow_the_current_locale_and_fill_placeholders() -> None:
    assert _("Paused `{id}`.", id="x") == "Paused `x`."
    with use_locale("zh-CN"):
        assert _("Paused `{id}`.", id="x") == "已暂停 `x`。"
        with use_locale("en-US"):
            assert _("Paused `{id}`.", id="x") == "Paused `x`."
        assert i18n.current_locale() == "zh_CN"
        assert i18n.pgettext("slash option choice", "game_day") == "游戏日"
        assert _("not in any catalog") == "not in any catalog"
    assert i18n.current_locale() == "en"
    assert ngettext("{n} task", "{n} tasks", 1) == "1 task"
    assert ngettext("{n} task", "{n} tasks", 3) == "3 tasks"


def test_a_cached_verdict_is_shown_in_each_readers_language() -> None:
    """The checker caches its verdicts: their text must be translated when shown, not made."""
    checker = CommandChecker(deny=["op"])
    with use_locale("zh_CN"), pytest.raises(CommandRefused) as first:
        checker.check("op Steve")
    with use_locale("en"), pytest.raises(CommandRefused) as again:
        checker.check("op Steve")
    assert first.value is again.value  # the same cached error
    assert str(again.value).startswith("`op` is on this server's deny-list. An admin allows")
    with use_locale("zh_CN"):
        assert str(first.value).startswith("`op` 在此服务器的禁用列表中。 管理员可将其")
    with use_locale("zh_CN"), pytest.raises(CommandParseError) as parse:
        checker.check("time query  gametime")
    with use_locale("zh_CN"):
        assert str(parse.value.message) == "命令参数有误（多了一个空格）"


def test_a_lazy_text_is_translated_when_it_is_shown() -> None:
    title = lazy("{n} task events", n=3)
    assert str(title) == "3 task events"
    with use_locale("zh_CN"):
        assert f"{title}" == "3 个任务事件"


def test_numbers_dates_and_relative_times_are_formatted_by_babel() -> None:
    now = datetime(2026, 1, 2, 3, 4, 5)
    with use_locale("zh_CN"):
        assert formats.relative(now + timedelta(minutes=5), now=now) == "5分钟后"
        assert formats.relative(now - timedelta(hours=2), now=now) == "2小时前"
        assert formats.number(1234567) == "1,234,567"
        # one way to write a time on every face: the locale's day, weekday and clock
        utc = now.replace(tzinfo=UTC)
        assert formats.clock(utc) == "2026年1月2日周五 03:04 UTC"
        assert formats.clock(utc, zone=ZoneInfo("America/New_York")) == "2026年1月1日周四 22:04 EST"
        assert formats.ticks_duration(20 * 3600) == "1小时"
    assert formats.relative(now + timedelta(minutes=5), now=now) == "in 5 minutes"
    assert formats.decimal(19.96) == "20.0"
    assert formats.duration(90) == "2 minutes"  # rounded to the largest unit
    assert formats.clock(now.replace(tzinfo=UTC)) == "Fri, Jan 2, 2026, 3:04\u202fAM UTC"


def test_in_game_texts_use_the_servers_own_language_setting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from bot.config import load_settings

    monkeypatch.setenv("DOOM_SERVERS__0__NAME", "main")
    monkeypatch.setenv("DOOM_SERVERS__0__RCON_PASSWORD", "pw")
    monkeypatch.setenv("DOOM_SERVERS__0__LOCALE", "zh_CN")
    monkeypatch.setenv("DOOM_LOCALE", "en")
    settings = load_settings(None)
    [server] = settings.servers
    assert settings.locale == "en" and server.locale == "zh_CN"
    assert ServerConfig(name="x", rcon_password="pw").locale == "en"  # type: ignore[arg-type]
    with use_locale(server.locale):
        assert _("Task resumed: its player is back") == "任务已恢复：其玩家已回来"


def test_a_language_without_a_catalog_is_refused_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.config import load_settings
    from bot.errors import ConfigError

    monkeypatch.setenv("DOOM_LOCALE", "fr")
    with pytest.raises(ConfigError) as info:
        load_settings(None)
    assert "DOOM_LOCALE" in str(info.value)
    assert "'fr' is not a language the bot speaks (available: en, zh_CN)" in str(info.value)
    monkeypatch.setenv("DOOM_LOCALE", "zh-CN")  # Discord's spelling is accepted and normalized
    assert load_settings(None).locale == "zh_CN"


def test_the_tree_command_prints_the_golden_tree() -> None:
    """`python -m bot.catalogs tree > tests/cogs/command_tree.json` is how the golden is remade."""
    import json

    from bot.catalogs.tree import tree_payload

    golden = Path(__file__).parents[1] / "cogs" / "command_tree.json"
    assert tree_payload() == json.loads(golden.read_text(encoding="utf-8"))


def test_a_stored_sentence_is_said_again_in_the_current_locale() -> None:
    from bot.i18n.retranslate import retranslate

    with use_locale("zh_CN"):
        assert retranslate("Paused planned `hourly` on main.") == "已暂停 main 上的计划 `hourly`。"
        assert retranslate("Reloaded cogs.reads.") == "已重载 cogs.reads。"
        said_in_chinese = _("Cancelled `{id}`.", id="door")
        # several sentences, one a line, each said again; text no catalog has stays as it is
        assert retranslate("Reloaded a.\nsomething else") == "已重载 a。\nsomething else"
        assert retranslate("say <b>hi</b>") == "say <b>hi</b>"
    assert retranslate(said_in_chinese) == "Cancelled `door`."
    # a sentence that is almost only placeholders ("{a}: {b}") matches nothing by itself
    assert retranslate("x: y") == "x: y"
