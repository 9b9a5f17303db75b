"""`/schedule ... dst_repeated:... dst_skipped:...` typed in the console (the slash command's
options, read against the registry): the row keeps the policy, `/show` says it with the next 12
months' clock changes, and a value that is not one of the choices is refused before anything is
made."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

from bot.testkit.harness import ADMIN
from console.session import run_console
from mcsim.server import Server
from tests.console.typed import typed_by
from tests.fixtures import start_bot

PASSWORD = "console-dst-Pw"


async def test_the_policy_typed_in_the_console_is_kept_and_shown(
    mcsim: Callable[..., Server], tmp_path: Path
) -> None:
    server = mcsim(password=PASSWORD)
    harness = await start_bot(server, tmp_path, PASSWORD)
    try:
        stdin = io.StringIO(
            "/schedule run:say night id:night repeat:30 2 * * * timezone:Europe/Berlin "
            "dst_repeated:second dst_skipped:skip\n"
            "/schedule run:say odd id:odd repeat:30 2 * * * dst_repeated:twice\n"
            "/show id:night\n"
        )
        out = io.StringIO()
        await run_console(harness.bot.ops, stdin, out, typed_by(ADMIN))
        text = " ".join(out.getvalue().split())  # the tables wrap long facts
        assert "! dst_repeated is one of first, second, both" in text, text
        shown = text.split("Planned night", 1)[1]
        assert (
            "a time in the hour the clock repeats runs once, in the second pass; a time in the "
            "hour the clock skips does not run" in shown
        ), shown
        assert "the clock goes forward from 02:00 to 03:00: 02:30 does not run." in shown, shown
        assert "the clock goes back from 03:00 to 02:00: 02:30 runs once, at 02:30 CET." in shown
        scheduler = harness.services.scheduler
        assert scheduler is not None
        row = await scheduler.find("main", "night")
        assert row is not None and (row.dst_repeated, row.dst_skipped) == ("second", "skip")
        assert await scheduler.find("main", "odd") is None
    finally:
        await harness.close()
