"""The crash test: mcsim as a real process (`python -m mcsim`), the bot
with all its cogs on real services (TCP RCON, the log tailer on the file mcsim writes). After
the world's last save the bot makes N schedules and M cancels and pauses; the process is
SIGKILLed (so what came after the save is gone, as in vanilla) and started again on the same
world and port. The bot restores exactly those, posts one alert, and no task runs twice or is
lost (runs counted in latest.log and the rolled logs). A normal restart afterwards posts no
alert. Every wait is bounded; the processes are killed if the test fails."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from bot.config import ServerConfig
from bot.minecraft.rcon import RconClient
from bot.services import build_services
from bot.testkit.harness import ALERT_CHANNEL, MOD, Harness, make_settings
from mcsim.server import Server
from tests.fixtures import install_pack, said_in_logs

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "crash-test-rcon-pw"
WAIT = 60.0
TITLE = "Server came back from its last save: tasks restored"


class McsimProcess:
    """`python -m mcsim` on a world; its RCON port is the one it printed (port 0 at first)."""

    def __init__(self, world: Path) -> None:
        self.world = world
        self.port = 0
        self.proc: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "mcsim",
            "--world",
            str(self.world),
            "--rcon-port",
            str(self.port),
            "--rcon-password",
            PASSWORD,
            env=env,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
        )
        assert self.proc.stdout is not None
        async with asyncio.timeout(WAIT):
            while True:
                line = (await self.proc.stdout.readline()).decode()
                assert line, "mcsim ended before it opened RCON"
                m = re.match(r"RCON on 127\.0\.0\.1:(\d+)", line)
                if m:
                    self.port = int(m.group(1))
                    return

    async def kill(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            self.proc.send_signal(signal.SIGKILL)
            await asyncio.wait_for(self.proc.wait(), WAIT)

    async def wait(self) -> int:
        assert self.proc is not None
        return await asyncio.wait_for(self.proc.wait(), WAIT)


def runs(world: Path, word: str) -> int:
    """How often `say <word>` ran, in latest.log and every rolled log."""
    return said_in_logs(world, word)


@pytest.fixture
async def mcsim_world(tmp_path: Path) -> AsyncIterator[McsimProcess]:
    world = install_pack(tmp_path / "world")
    seed = Server(world)  # writes server.properties and level.dat; the pack's #load ran
    seed.start()
    seed.stop()
    props = world / "server.properties"
    # nobody joins this server: it must keep ticking (vanilla pauses an empty one after 60 s)
    props.write_text(props.read_text() + "\npause-when-empty-seconds=0\n")
    process = McsimProcess(world)
    await process.start()
    try:
        yield process
    finally:
        await process.kill()


async def until(predicate: Callable[[], bool], what: str = "the condition") -> None:
    """Polls what has no event to wait on (a file another process writes, the guard's state)."""
    for _ in range(int(WAIT / 0.05)):
        if predicate():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{what} did not happen within {WAIT:g} s")


def alert_posts(harness: Harness) -> list[dict[str, object]]:
    return [
        e
        for p in harness.posts(ALERT_CHANNEL)
        for e in p.payload.get("embeds", [])
        if e.get("title") == TITLE
    ]


@pytest.mark.slow
async def test_sigkill_after_the_last_save_loses_nothing_and_runs_nothing_twice(
    mcsim_world: McsimProcess, tmp_path: Path
) -> None:
    world = mcsim_world.world
    config = ServerConfig(
        name="main",
        rcon_port=mcsim_world.port,
        rcon_password=PASSWORD,  # type: ignore[arg-type]
        world_dir=world,
        log_path=world / "logs" / "latest.log",
        event_source="log",
    )
    # no audit channel: Discord's 5-posts-in-5-s channel bucket
    # (bot.testkit.localdiscord.http_session) would hold the sixth /schedule's reply for
    # seconds, while the tasks' game-time due ticks run on
    settings = make_settings(tmp_path, [config], log_poll_interval=0.05, audit_channel_id=None)
    services = await build_services(settings)
    live = await Harness(settings, services).start()
    admin = RconClient("127.0.0.1", mcsim_world.port, PASSWORD, timeout=20, backoff_initial=0.05)
    guard = services.servers["main"].guard
    assert guard is not None
    try:
        alerts = live.bot.get_cog("Alerts")
        alerts.batch_window = 0.1  # type: ignore[union-attr]
        pack = services.servers["main"].pack

        async def schedule(task_id: str, ticks: int) -> None:
            reply = await live.run(
                "schedule", MOD, run=f"say ran-{task_id}", time=ticks, unit="tick", id=task_id
            )
            assert f"Scheduled `{task_id}`" in reply.text, reply.text

        # before the save: the world keeps these
        for task_id in ("keep", "cancel1", "cancel2", "pause1"):
            await schedule(task_id, 240)
        await schedule("ranbefore", 80)  # runs before the crash: must not run again after it
        await admin.command(  # made in game (not by the bot): the bot must leave it alone
            'function doom.schedule:schedule {run:"say ran-ingame",time:240,unit:"t",id:"ingame"}'
        )
        assert (await admin.command("save-all")).startswith("Saving the game")
        saved_at = await pack.get_time()
        # after the save: N = 3 schedules, M = 3 cancels and pauses, and one that runs at once
        lost = {"lost1": 220, "lost2": 230, "lost3": 240}
        for task_id, ticks in lost.items():
            await schedule(task_id, ticks)
        await schedule("soon", 10)
        assert "Cancelled" in (await live.run("cancel", MOD, id="cancel1")).text
        assert "Cancelled" in (await live.run("cancel", MOD, id="cancel2")).text
        assert "Paused" in (await live.run("pause", MOD, id="pause1")).text
        await until(  # ranbefore and soon run while the server is up
            lambda: runs(world, "ran-ranbefore") == 1 and runs(world, "ran-soon") == 1,
            "ranbefore and soon running",
        )
        crashed_at = await pack.get_time()  # the bot saw the game time past both
        assert crashed_at < saved_at + 200  # the other tasks have not run yet

        await mcsim_world.kill()
        await mcsim_world.start()  # the same world and port, from the last save
        await until(lambda: bool(alert_posts(live)))
        [alert] = alert_posts(live)
        fields = {f["name"]: f["value"] for f in alert["fields"]}  # type: ignore[attr-defined]
        again = fields["scheduled again"]
        assert [t for t in lost if t in again] == list(lost) and "soon" not in again
        assert fields["cancelled again"] == "`cancel1 (cancel_one), cancel2 (cancel_one)`"
        assert "pause1" in fields["paused again"]
        assert "ranbefore" in fields["ran before the crash, kept from running again"]
        assert "could not be restored" not in fields
        for other in ("keep", "ingame"):
            assert all(other not in v for v in fields.values())
        # every task's due tick passes: each ran exactly once, or never
        for _ in range(int(WAIT / 0.2)):
            if await pack.get_time() >= saved_at + 260:
                break
            await asyncio.sleep(0.2)
        for task_id in ("keep", "ingame", "ranbefore", "soon", *lost):
            assert runs(world, f"ran-{task_id}") == 1, task_id
        for task_id in ("cancel1", "cancel2", "pause1"):
            assert runs(world, f"ran-{task_id}") == 0, task_id
        paused, _ = await pack.list_tasks("paused")
        assert [t.id for t in paused] == ["pause1"]
        await until(guard.idle.is_set)
        assert len(alert_posts(live)) == 1  # one alert for the one crash

        # a normal restart (stop saves everything): the guard looks and posts nothing
        checks = guard.checks
        await admin.command("stop")
        assert await mcsim_world.wait() == 0
        await mcsim_world.start()
        await until(lambda: guard.checks > checks and guard.idle.is_set())
        await asyncio.sleep(0.5)
        assert len(alert_posts(live)) == 1
        assert [t.id for t in (await pack.list_tasks("paused"))[0]] == ["pause1"]
    finally:
        await admin.close()
        await live.close()
