"""The console front end: lines typed in a terminal run through the same tree and cogs."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from bot.localdiscord.emulator import render
from bot.localdiscord.http_session import LocalFile
from console.session import parse_line, run_console
from tests.cogs.harness import ADMIN, Harness


async def test_parse_line_splits_options_on_known_names(bare: Harness) -> None:
    name, options = parse_line(
        '/schedule run:tellraw @a {"text":"a b:c"} time:5 unit:Second id:x', bare.bot
    )
    assert name == "schedule"
    assert options == {"run": 'tellraw @a {"text":"a b:c"}', "time": 5, "unit": "second", "id": "x"}


async def test_an_attachment_option_is_a_file_path_in_the_console(
    bare: Harness, tmp_path: Path
) -> None:
    plan = tmp_path / "plan.yaml"
    plan.write_text("version: 1\nserver: main\n")
    name, options = parse_line(f"/plan import file:{plan} server:main", bare.bot)
    assert name == "plan import"
    assert options == {
        "file": LocalFile("plan.yaml", b"version: 1\nserver: main\n"),
        "server": "main",
    }
    with pytest.raises(ValueError, match="file: cannot read"):
        parse_line(f"/plan import file:{tmp_path / 'gone.yaml'}", bare.bot)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("/nope", "unknown command /nope"),
        ("/schedule time:5", "/schedule needs run"),
        ("/schedule run:say hi time:soon", "time must be a number"),
        ("/schedule run:say hi time:5 unit:fortnight", "unit is one of tick, second"),
        ("/help extra", "/help takes no options"),
        ("/cancel a", "write options as name:value"),
        # a mistyped option is refused, not taken as part of the value before it
        ("/schedule run:say hi tme:5", r"^unknown option tme: did you mean time\?$"),
        ("/schedule run:say hi time:5 unti:second", "unknown option unti: did you mean unit"),
        ("/schedule tme:5 run:say hi", "unknown option tme: did you mean time"),
        ("/schedule bogus:1 run:say hi", r"^unknown option bogus \(options: run, time, unit"),
    ],
)
async def test_parse_line_explains_mistakes(bare: Harness, line: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_line(line, bare.bot)


async def test_words_and_colons_far_from_an_option_stay_in_the_value(bare: Harness) -> None:
    line = '/schedule run:give @p minecraft:stone note: {"text":"tme"} time:5'
    assert parse_line(line, bare.bot)[1] == {
        "run": 'give @p minecraft:stone note: {"text":"tme"}',
        "time": 5,
    }
    # a two-letter option (at, id) has too many words near it to guess
    assert parse_line("/schedule run:say ok: hi time:5", bare.bot)[1]["run"] == "say ok: hi"


def test_render_shows_embeds_buttons_and_timestamps() -> None:
    text = render(
        {
            "content": "hello",
            "embeds": [
                {
                    "title": "T",
                    "description": "due <t:0:R>",
                    "fields": [{"name": "id", "value": "`a`"}],
                }
            ],
            "components": [
                {
                    "type": 1,
                    "components": [
                        {"type": 2, "label": "Confirm", "custom_id": "c", "style": 4},
                        {
                            "type": 2,
                            "label": "Cancel",
                            "custom_id": "x",
                            "style": 2,
                            "disabled": True,
                        },
                    ],
                }
            ],
        }
    )
    assert text.splitlines()[0] == "hello"
    assert "== T ==" in text and "  id: `a`" in text
    assert "<t:" not in text and "ago)" in text
    assert "[Confirm] [Cancel] (disabled)" in text


async def test_console_runs_lines_and_prints_replies(bare: Harness) -> None:
    stdin = io.StringIO(
        "/help\n\n/nope\n/time\nsomething\n/reload extension:cogs.reads\nquit\n/help\n"
    )
    out = io.StringIO()
    await run_console(bare.discord, stdin, out, ADMIN.id, ADMIN.roles)
    text = out.getvalue()
    assert "\ndoom.schedule commands\n" in text
    assert text.count("doom.schedule commands\n") == 1  # nothing after quit ran
    assert "! unknown command /nope: try /help" in text
    assert "No Minecraft server is configured" in text
    assert "type a slash command" in text
    assert "Reloaded cogs.reads." in text


async def test_console_stops_at_end_of_input(bare: Harness) -> None:
    out = io.StringIO()
    await run_console(bare.discord, io.StringIO("/help"), out, ADMIN.id)
    assert "/schedule:" in out.getvalue()


async def test_console_answers_buttons_by_typing(bare: Harness) -> None:
    from tests.cogs.test_cogs_views import add_confirm_command

    done: list[int] = []
    add_confirm_command(bare, done, timeout=30)
    stdin = io.StringIO("/danger\nmaybe\nno\n/danger\nyes\n")
    out = io.StringIO()
    await run_console(bare.discord, stdin, out, ADMIN.id, ADMIN.roles)
    text = out.getvalue()
    assert "Really?\n[Confirm] [Cancel]" in text
    assert "! answer with one of: Confirm, Cancel" in text
    assert "(updated) Cancelled; nothing was changed." in text
    assert "Done 1." in text and done == [ADMIN.id]
