"""The console front end: a typed line is read against the operation registry (the slash
commands' names and options) and runs on the core."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict

from bot.operations import Caller, Operations, Rank
from bot.operations.registry import OperationSpec
from bot.testkit.harness import ADMIN, MOD, Harness
from bot.testkit.localdiscord.emulator import render
from console.session import parse_line, run_console
from tests.console.typed import typed, typed_by


def test_parse_line_splits_options_on_known_names(bare: Harness) -> None:
    command, values = parse_line(
        '/schedule run:tellraw @a {"text":"a b:c"} time:5 unit:Second id:x', bare.bot.ops.registry
    )
    assert command.name == "schedule"
    assert values == {"run": 'tellraw @a {"text":"a b:c"}', "time": 5, "unit": "second", "id": "x"}


def test_a_file_option_is_a_file_path_in_the_console(bare: Harness, tmp_path: Path) -> None:
    plan = tmp_path / "plan.yaml"
    plan.write_text("version: 1\nserver: main\n")
    registry = bare.bot.ops.registry
    command, values = parse_line(f"/plan import file:{plan} server:main", registry)
    assert command.name == "plan import"
    assert values == {"document": "version: 1\nserver: main\n", "server": "main"}
    with pytest.raises(ValueError, match="file: cannot read"):
        parse_line(f"/plan import file:{tmp_path / 'gone.yaml'}", registry)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("/nope", "unknown command /nope"),
        ("/schedule time:5", "/schedule needs run"),
        ("/schedule run:say hi time:soon", "time must be a number"),
        ("/schedule run:say hi time:5 unit:fortnight", "unit is one of tick, second"),
        ("/help extra", "/help takes no options"),
        ("/cancel a", "write options as name:value"),
        ("/plan", "/plan needs one of: export, import"),
        # a mistyped option is refused, not taken as part of the value before it
        ("/schedule run:say hi tme:5", r"^unknown option tme: did you mean time\?$"),
        ("/schedule run:say hi time:5 unti:second", "unknown option unti: did you mean unit"),
        ("/schedule tme:5 run:say hi", "unknown option tme: did you mean time"),
        ("/schedule bogus:1 run:say hi", r"^unknown option bogus \(options: run, require, "),
    ],
)
def test_parse_line_explains_mistakes(bare: Harness, line: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_line(line, bare.bot.ops.registry)


def test_words_and_colons_far_from_an_option_stay_in_the_value(bare: Harness) -> None:
    registry = bare.bot.ops.registry
    line = '/schedule run:give @p minecraft:stone note: {"text":"tme"} time:5'
    assert parse_line(line, registry)[1] == {
        "run": 'give @p minecraft:stone note: {"text":"tme"}',
        "time": 5,
    }
    # a two-letter option (at, id) has too many words near it to guess
    assert parse_line("/schedule run:say ok: hi time:5", registry)[1]["run"] == "say ok: hi"


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
    text = await typed(bare.bot.ops, "/help\n\n/nope\n/time\nsomething\nquit\n/help\n")
    assert "\ndoom.schedule commands\n" in text
    assert text.count("doom.schedule commands\n") == 1  # nothing after quit ran
    assert "! unknown command /nope: try /help" in text
    assert "No Minecraft server is configured" in text
    assert "type a slash command" in text


async def test_reload_is_discords_and_not_the_consoles(bare: Harness) -> None:
    """Reloading a cog is the Discord face's own command: the console, with no cogs, has none."""
    reply = await bare.run("reload", ADMIN, extension="cogs.reads")
    assert "Reloaded cogs.reads." in reply.text
    text = await typed(bare.bot.ops, "/reload extension:cogs.reads\n")
    assert "! unknown command /reload: try /help" in text


async def test_console_stops_at_end_of_input(bare: Harness) -> None:
    out = io.StringIO()
    await run_console(bare.bot.ops, io.StringIO("/help"), out, typed_by(ADMIN))
    assert "/schedule:" in out.getvalue()


class Nothing(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


async def test_an_operation_that_asks_first_is_answered_by_typing(bare: Harness) -> None:
    done: list[int] = []

    async def ask(ops: Operations, caller: Caller, req: Nothing) -> str | None:
        return "Really?"

    async def count(ops: Operations, caller: Caller, req: Nothing) -> str:
        done.append(caller.user_id)
        return f"Done {len(done)}."

    spec = OperationSpec("danger", "Asks, then counts.", Nothing, Rank.MODERATOR, count)
    bare.bot.ops.registry.add(OperationSpec(**{**spec.__dict__, "confirm": ask}))
    text = await typed(bare.bot.ops, "/danger\nmaybe\nno\n/danger\nyes\n", MOD)
    assert "Really?\n[Confirm] [Cancel]" in text
    assert "! answer with one of: Confirm, Cancel" in text
    assert "(updated) Cancelled; nothing was changed." in text
    assert "Done 1." in text and done == [MOD.id]
