"""The console's screen: the shared markup rendered for a terminal, plain text on a pipe; and the
local Discord (the Discord face's test harness) keeps a bounded store however long it runs."""

from __future__ import annotations

import io
import re
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from bot.operations.sections import Field, Section
from bot.testkit.harness import ADMIN, Harness
from bot.testkit.localdiscord import emulator as local_discord
from console.session import Screen
from tests.console.typed import typed

NOW = datetime(2026, 12, 4, 18, 59, 31, tzinfo=UTC)
DUE = int(datetime(2026, 12, 4, 19, 0, 0, tzinfo=UTC).timestamp())
TEXT = f"Planned `raid` on **main** for <t:{DUE}:F> (<t:{DUE}:R>).\nUse **/cancel** to stop."
PLANNED = Section(
    "Planned `raid`",
    ("`raid` soon\n  `say hi`",),
    (
        Field("runs", "```\nsay hi\n```"),
        Field(
            "next runs",
            f"<t:{DUE}:F> (<t:{DUE}:R>)\n<t:{DUE + 604800}:F> (<t:{DUE + 604800}:R>)",
        ),
        Field("state", "scheduled"),
    ),
    footer="planned #1 by mod",
    tone="planned",
)


def shown(terminal: bool) -> str:
    out = io.StringIO()
    screen = Screen(out, terminal=terminal, zone=ZoneInfo("Europe/Berlin"), clock=lambda: NOW)
    screen.show(TEXT, (PLANNED,))
    return out.getvalue()


def test_a_pipe_gets_plain_text_with_no_discord_markup() -> None:
    text = shown(terminal=False)
    for raw in ("**", "```", "`", "<t:", "\x1b["):
        assert raw not in text, (raw, text)
    lines = text.splitlines()
    assert (
        lines[0] == "Planned raid on main for Fri, Dec 4, 2026, 8:00\u202fPM CET (in 29 seconds)."
    )
    assert lines[1] == "Use /cancel to stop."
    assert "  say hi" in lines  # the description's indented line keeps its indent
    assert all(line == line.rstrip() for line in lines)  # nothing padded to a width
    # the field values start in one column; a value's second line starts under its first
    runs = next(i for i, line in enumerate(lines) if line.startswith("  next runs:"))
    column = lines[runs].index("Fri")
    assert lines[runs + 1] == " " * column + "Fri, Dec 11, 2026, 8:00\u202fPM CET (in 1 week)"
    assert lines[runs + 2].startswith("  state:") and lines[runs + 2].index("scheduled") == column
    assert "say hi" in lines[runs - 1] and lines[runs - 1].startswith("  runs:")
    # one time format: the zone named, the relative part once, no bracket inside a bracket
    assert not any(re.search(r"\([^)]*\(", line) for line in lines), text


def test_a_terminal_gets_colour() -> None:
    text = shown(terminal=True)
    assert "\x1b[" in text and "**" not in text and "<t:" not in text


async def test_the_console_prints_help_without_markdown(bare: Harness) -> None:
    text = await typed(bare.bot.ops, "/help\n")
    assert "/schedule" in text and "**" not in text and "\x1b[" not in text


async def test_the_local_discord_keeps_a_bounded_store(bare: Harness) -> None:
    local = bare.discord
    commands = local_discord.KEEP_EXCHANGES + 50
    for _ in range(commands):
        assert "doom.schedule commands" in (await bare.run("help", ADMIN)).text  # every one ran
    per_channel: dict[str, int] = {}
    for message in local.messages.values():
        per_channel[message["channel_id"]] = per_channel.get(message["channel_id"], 0) + 1
    assert max(per_channel.values()) <= local_discord.KEEP_MESSAGES
    assert len(local.exchanges) <= local_discord.KEEP_EXCHANGES
    assert len(local._born) <= local_discord.KEEP_EXCHANGES
    assert len(local.sent) <= local_discord.KEEP_SENT
    # the newest are the ones kept: the last command's reply is still there
    last = list(local.exchanges.values())[-1]
    assert last.messages and last.messages[-1].message_id in local.messages
