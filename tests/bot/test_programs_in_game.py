"""A program on the whole bot (its log tail, crash guard and run history) and mcsim on the
real clock: a step whose command fails in game is recorded as failed from the pack's own event,
not taken as run from its hand-over, and the step after it follows its policy."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from bot.operations import registry
from bot.testkit.harness import MOD
from mcsim.server import Server
from tests.console.typed import typed_by
from tests.fixtures import start_bot

PASSWORD = "programs-in-game-Pw"
# no player is online: step 1's command fails in game (the pack retries none, retry_exhausted)
STEPS = """
- run: execute if entity @a run scoreboard players add first wc 1
  at: 0
- run: scoreboard players add second wc 1
  at: +3s
  after: 1
  on_failure: skip
- run: scoreboard players add third wc 1
  at: +3s
"""


async def test_a_step_that_failed_in_game_makes_the_next_follow_its_policy(
    mcsim: Callable[..., Server], tmp_path: Path
) -> None:
    server = mcsim(password=PASSWORD)
    server.run("scoreboard objectives add wc dummy")
    harness = await start_bot(server, tmp_path, PASSWORD)
    try:
        ops, caller = harness.bot.ops, typed_by(MOD)
        await registry.run(ops, caller(), "program save", {"name": "night", "steps": STEPS})
        started = await registry.run(ops, caller(), "program start", {"name": "night"})
        run = started.facts["run"]
        async with asyncio.timeout(15):
            while True:
                shown = await registry.run(ops, caller(), "program show", {"run": run})
                if shown.facts["state"] != "running":
                    break
                await asyncio.sleep(0.2)
        steps = [(s["state"], s["outcome"]) for s in shown.facts["steps"]]
        assert steps == [("failed", "retry_exhausted"), ("skipped", None), ("ran", "ran")], steps
        assert shown.facts["state"] == "done"
        assert server.score("second", "wc") is None and server.score("third", "wc") == 1
    finally:
        await harness.close()
