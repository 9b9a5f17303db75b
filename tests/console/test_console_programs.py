"""`/program start` and `/program show` typed in the console (options read against the
registry, no console code of their own): the run is made on the bot's scheduler and shown step
by step."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from bot.operations import registry
from bot.testkit.harness import MOD
from mcsim.server import Server
from tests.console.typed import typed, typed_by
from tests.fixtures import start_bot

PASSWORD = "console-programs-Pw"
STEPS = "- run: say one\n  at: +1h\n- run: say two\n  at: +2h\n  after: 1\n"


async def test_program_start_and_show_in_the_console(
    mcsim: Callable[..., Server], tmp_path: Path
) -> None:
    server = mcsim(password=PASSWORD)
    harness = await start_bot(server, tmp_path, PASSWORD)
    try:
        ops = harness.bot.ops
        await registry.run(
            ops, typed_by(MOD)(), "program save", {"name": "evening", "steps": STEPS}
        )
        text = await typed(ops, "/program start name:evening\n/program show run:1\n", MOD)
        assert "started on main as run #1" in text, text
        # the steps as the console renders the shared markup's numbered list
        assert re.search(r"\b1\.? say one at \+1h: planned due .+ \(in 1 hour\)", text), text
        assert re.search(r"\b2\.? say two at \+2h: waiting", text), text
        scheduler = harness.services.scheduler
        assert scheduler is not None
        row = await scheduler.find("main", "evening.1.1")
        assert row is not None and row.command == "say one" and row.state == "active"
        assert await scheduler.find("main", "evening.1.2") is None
        refused = await typed(ops, "/program show run:9\n", MOD)
        assert "There is no program run #9." in refused, refused
        early = "- run: say soon\n  at: -10m\n"
        await registry.run(ops, typed_by(MOD)(), "program save", {"name": "early", "steps": early})
        refused = await typed(ops, "/program start name:early when:in 5m\n", MOD)
        assert "Its first step is 10m before the start" in refused, refused
        assert "which has passed" in refused, refused
        assert await scheduler.find("main", "early.2.1") is None  # nothing made
        paused = await typed(ops, "/program pause run:1\n", MOD)
        assert "Run #1 paused" in paused, paused
        held = await scheduler.get(row.id)
        assert held is not None and held.state == "paused"
        listed = await typed(ops, "/program list\n", MOD)
        assert "early version 1" in listed.replace("`", "") and "evening version 1" in (
            listed.replace("`", "")
        ), listed
        assert re.search(r"Run #1: evening v1 on main from .+: paused", listed.replace("`", ""))
        resumed = await typed(ops, "/program resume run:1\n", MOD)
        assert "Run #1 resumed." in resumed, resumed
        again = await scheduler.get(row.id)
        assert again is not None and again.state == "active"
        cancelled = await typed(ops, "/program cancel run:1\n/program cancel run:1\n", MOD)
        assert "Run #1 cancelled: its remaining steps will not run." in cancelled, cancelled
        assert "Run #1 is cancelled: it cannot be cancelled." in cancelled, cancelled
        gone = await scheduler.get(row.id)
        assert gone is not None and gone.state == "cancelled"
        audited = [m.action for m in await harness.services.audit.mutations(limit=10)]
        assert audited == [
            "program cancel",
            "program resume",
            "program pause",
            "program save",
            "program start",
            "program save",
        ]
    finally:
        await harness.close()
