"""Wall-clock schedules end to end, in real time: mcsim's realtime loop with
`pause-when-empty-seconds=1` and nobody online (so its game time stands still), the bot's real
services and scheduler on the system clock, the commands through the slash-command harness.
A `when:in 5s` task runs within a second of its time; a game-time task of 5 seconds does not."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.config import ServerConfig
from bot.services import build_services
from bot.testkit.harness import MOD, Harness, make_settings
from mcsim.server import Server

PASSWORD = "e2e-wallclock-password"


@pytest.fixture
def paused(tmp_path: Path, mcsim: Callable[..., Server]) -> Server:
    world = tmp_path / "world"
    world.mkdir()
    (world / "server.properties").write_text("pause-when-empty-seconds=1\n", encoding="utf-8")
    return mcsim(password=PASSWORD, realtime=True)


@pytest.mark.slow
async def test_when_in_5s_runs_on_time_while_a_game_time_task_waits(
    paused: Server, tmp_path: Path
) -> None:
    assert paused.rcon_port is not None
    deadline = time.monotonic() + 20
    while "pausing" not in paused.log_path.read_text(encoding="utf-8"):
        assert time.monotonic() < deadline, "mcsim never paused"
        await asyncio.sleep(0.05)
    await asyncio.to_thread(paused.run, "scoreboard objectives add wc dummy")
    paused_at = paused.game_time
    config = ServerConfig(
        name="main",
        rcon_port=paused.rcon_port,
        rcon_password=PASSWORD,  # type: ignore[arg-type]
        world_dir=paused.world,
        log_path=paused.log_path,
        event_source="log",
    )
    settings = make_settings(tmp_path, [config], log_poll_interval=0.05)
    harness = await Harness(settings, await build_services(settings)).start()
    try:
        scheduler = harness.services.scheduler
        assert scheduler is not None and scheduler.running
        game = await harness.run(
            "schedule",
            MOD,
            run="scoreboard players add #game wc 1",
            time=5,
            unit="second",
            id="game",
        )
        assert "pauses when empty" in game.text  # the reply says why it will not run
        wall = await harness.run(
            "schedule", MOD, run="scoreboard players add #wall wc 1", when="in 5s", id="wall"
        )
        assert "Planned `wall`" in wall.text
        row = await scheduler.find("main", "wall")
        assert row is not None and row.next_due is not None
        due = row.next_due.timestamp()
        ran_at: float | None = None
        limit = time.monotonic() + 15
        while time.monotonic() < limit:
            if paused.score("#wall", "wc") is not None:
                ran_at = time.time()
                break
            await asyncio.sleep(0.01)
        assert ran_at is not None, "the wall-clock task never ran"
        assert abs(ran_at - due) < 1.0, f"ran {ran_at - due:+.3f} s from its time"
        await asyncio.sleep(max(0.0, due + 2.0 - time.time()))
        assert paused.score("#wall", "wc") == 1
        assert paused.score("#game", "wc") is None  # game time stood still: 5 s never passed
        assert paused.game_time - paused_at < 100
        runs = await scheduler.runs(row.id, 5)
        assert [r.outcome for r in runs] == ["ran"]
        assert runs[0].lateness is not None and runs[0].lateness < 1.0
    finally:
        await harness.close()
