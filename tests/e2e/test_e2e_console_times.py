"""The console over real services to mcsim: a planned row's times in the reader's zone, with
the zone named, and completion offering the live ids the slash commands' autocomplete gives."""

from __future__ import annotations

import io
import re
from zoneinfo import ZoneInfo

from bot.testkit.harness import MOD, Harness
from bot.times.clock import ManualClock
from console.lines import SlashCompleter
from console.session import run_console
from mcsim.server import Server
from tests.console.typed import typed_by


async def test_a_berlin_time_shows_in_the_readers_zone_named(
    wall: tuple[Harness, ManualClock], mc: Server
) -> None:
    live, clock = wall
    stdin = io.StringIO(
        "/schedule run:say raid when:fri 20:00 timezone:Europe/Berlin id:raid\n/show id:raid\n"
    )
    out = io.StringIO()
    now = clock.now()  # Fri 2026-12-11 14:40 UTC
    await run_console(
        live.bot.ops,
        stdin,
        out,
        typed_by(MOD),
        zone=ZoneInfo("America/New_York"),
        clock=lambda: now,
    )
    text = out.getvalue()
    # 20:00 in Berlin is 14:00 in New York, and the console says which zone it shows
    said = "Fri, Dec 11, 2026, 2:00\u202fPM EST (in 4 hours)"
    assert f"Planned raid on main for {said}." in text, text
    lines = text.splitlines()
    runs = next(i for i, line in enumerate(lines) if line.startswith("  next runs:"))
    assert lines[runs].endswith(said)
    for raw in ("**", "```", "<t:", "\x1b["):
        assert raw not in text
    assert not any(re.search(r"\([^)]*\(", line) for line in lines), text


async def test_completion_offers_commands_options_and_live_ids(
    wall: tuple[Harness, ManualClock], mc: Server
) -> None:
    live, _clock = wall
    await live.run("schedule", MOD, run="say raid", id="raid", when="fri 20:00")
    await live.run("schedule", MOD, run="say queued", time=999, unit="tick", id="rather-queued")
    completer = SlashCompleter(live.bot.ops, typed_by(MOD))

    async def offered(text: str) -> list[str]:
        return [c.text for c in await completer.complete(text)]

    assert await offered("/can") == ["/cancel", "/cancel_all"]
    assert await offered("/cancel ") == ["id:", "server:"]
    assert await offered("/cancel id:raid s") == ["server:"]
    assert await offered("/list which:p") == ["paused", "planned"]
    # the ids /cancel's own autocomplete gives: the planned row and the pack's queued task
    assert (await offered("/cancel id:r"))[:2] == ["raid", "rather-queued"]
    assert await offered("/event ") == ["cancel", "create", "edit", "list", "show"]
    assert await offered("/nope x") == []
