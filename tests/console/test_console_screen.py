"""The console's screen: Discord's markup rendered for a terminal, plain text on a pipe, and a
local Discord whose store stays bounded however long the console runs."""

from __future__ import annotations

import io
import re
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from bot.localdiscord import emulator as local_discord
from console.session import Screen, run_console
from tests.cogs.harness import ADMIN, Harness

NOW = datetime(2026, 12, 4, 18, 59, 31, tzinfo=UTC)
DUE = int(datetime(2026, 12, 4, 19, 0, 0, tzinfo=UTC).timestamp())
PLANNED = {
    "content": f"Planned `raid` on **main** for <t:{DUE}:F> (<t:{DUE}:R>).\n"
    "Use **/cancel** to stop.",
    "embeds": [
        {
            "title": "Planned `raid`",
            "color": 0x57F287,
            "description": "`raid` soon\n  `say hi`",
            "fields": [
                {"name": "runs", "value": "```\nsay hi\n```"},
                {
                    "name": "next runs",
                    "value": f"<t:{DUE}:F> (<t:{DUE}:R>)\n<t:{DUE + 604800}:F> "
                    f"(<t:{DUE + 604800}:R>)",
                },
                {"name": "state", "value": "scheduled"},
            ],
            "footer": {"text": "planned #1 by mod"},
        }
    ],
}


def shown(terminal: bool) -> str:
    out = io.StringIO()
    screen = Screen(out, terminal=terminal, zone=ZoneInfo("Europe/Berlin"), clock=lambda: NOW)
    screen.show(PLANNED)
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
    out = io.StringIO()
    await run_console(bare.discord, io.StringIO("/help\n"), out, ADMIN.id, ADMIN.roles)
    text = out.getvalue()
    assert "/schedule" in text and "**" not in text and "\x1b[" not in text


async def test_the_local_discord_keeps_a_bounded_store(bare: Harness) -> None:
    local = bare.discord
    commands = local_discord.KEEP_EXCHANGES + 50
    out = io.StringIO()
    await run_console(local, io.StringIO("/help\n" * commands), out, ADMIN.id, ADMIN.roles)
    assert out.getvalue().count("doom.schedule commands") == commands  # every one ran
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
