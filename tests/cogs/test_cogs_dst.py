"""/schedule's `dst_repeated` and `dst_skipped` options in Discord (the slash command through the
local Discord stand-in, the bot on mcsim over TCP RCON): offered as choices, kept by the row, and
the reply's embed says the policy with the next 12 months' clock changes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from bot.testkit.harness import MOD
from mcsim.server import Server
from tests.fixtures import start_bot

PASSWORD = "cogs-dst-Pw"


async def test_the_slash_options_set_the_policy_and_the_reply_says_it(
    mcsim: Callable[..., Server], tmp_path: Path
) -> None:
    harness = await start_bot(mcsim(password=PASSWORD), tmp_path, PASSWORD)
    try:
        [command] = [c for c in harness.bot.tree.get_commands() if c.name == "schedule"]
        options = {o["name"]: o for o in command.to_dict(harness.bot.tree)["options"]}
        assert [c["value"] for c in options["dst_repeated"]["choices"]] == [
            "first",
            "second",
            "both",
        ]
        assert [c["value"] for c in options["dst_skipped"]["choices"]] == ["shift", "skip"]
        reply = await harness.run(
            "schedule",
            MOD,
            run="say hourly",
            id="hourly",
            repeat="15 * * * *",
            timezone="America/New_York",
            dst_repeated="both",
            dst_skipped="shift",
        )
        await reply.done()
        assert reply.ephemeral and "Planned `hourly`" in reply.text, reply.text
        [embed] = reply.embeds
        fields = [(f["name"], f["value"]) for f in embed["fields"]]
        assert (
            "when the clock changes",
            "a time in the hour the clock repeats runs in both passes; a time in the hour the "
            "clock skips runs once, when the clock jumps",
        ) in fields, fields
        changes = [v for n, v in fields if n == "clock change"]
        assert len(changes) == 2, fields
        assert any(
            v.endswith("the clock goes forward from 02:00 to 03:00: 02:15 runs once, at 03:00 EDT.")
            for v in changes
        ), changes
        assert any(
            v.endswith(
                "the clock goes back from 02:00 to 01:00: 01:15 runs twice, at 01:15 EDT and "
                "01:15 EST."
            )
            for v in changes
        ), changes
        scheduler = harness.services.scheduler
        assert scheduler is not None
        row = await scheduler.find("main", "hourly")
        # an hourly cron runs in both passes by default: that choice is kept as the default
        assert row is not None and (row.dst_repeated, row.dst_skipped) == (None, "shift")
    finally:
        await harness.close()
