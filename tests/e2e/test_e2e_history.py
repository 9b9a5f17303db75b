"""Acceptance: a game-time task the bot made fails in game; the pack's events about it reach the
bot through latest.log and become its run history (/history shows them), while a task made in
game leaves none."""

from __future__ import annotations

import asyncio

from bot.testkit.harness import MOD, Harness
from mcsim.server import Server
from tests.e2e.test_e2e_alerts import alert_titles

FAILS = "execute if entity @e[type=minecraft:pig]"


async def test_a_bot_made_tasks_failures_are_its_history(live: Harness, mc: Server) -> None:
    await live.run(
        "schedule", MOD, run=FAILS, time=1, unit="tick", retry=2, retry_delay=1, id="nopig"
    )
    await live.run("schedule", MOD, run="say fine", time=1, unit="tick", id="fine")
    mc.run(
        'data modify storage doom.schedule:in task set value {id:"ingame",run:"'
        + FAILS
        + '",time:1}'
    )
    mc.run("function doom.schedule:submit")
    await asyncio.to_thread(mc.step, 10)
    history = live.services.history

    async def outcomes(task_id: str) -> list[tuple[str, int]]:
        found, _ = await history.page("main", task_id)
        return [(e.outcome, e.attempts) for e in found]

    # the guard records an event before the alerts read it: the alert means it is recorded
    await live.discord.wait_for(lambda: len(alert_titles(live)) >= 2, limit=20)
    # each attempt is one run: the pack's ran, then the failure that is its outcome
    assert await outcomes("nopig") == [("retry_exhausted", 3), ("retry", 2), ("retry", 1)]
    assert await outcomes("fine") == [("ran", 1)]  # a success raises ran alone
    assert "event=retry_exhausted id=ingame" in mc.log_path.read_text()
    assert await outcomes("ingame") == []  # not the bot's: the bot keeps no history of it
    shown = await live.run("history", MOD, id="nopig")
    lines = shown.embeds[0]["description"].split("\n")
    assert "failed, no retries left · " in lines[0] and "3 attempts · game time" in lines[0]
    assert "failed, retrying" in lines[1]
