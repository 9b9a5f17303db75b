"""One crash trial: mcsim as its own process (`python -m mcsim`), the bot's real services on
it (TCP RCON, the log tailer on the file mcsim writes, the crash guard, the wall-clock
scheduler), tasks made through the pack client as the cogs make them, a save (`save-all`, the
6000-tick autosave, or none), SIGKILL at a chosen game time, a restart on the same world and
port after `down` seconds. Every run is counted in the server's own logs (each task says
`run-<id>`; latest.log and every rolled archive), so lost and twice are what really ran.

Game time is sped up with `tick rate` (vanilla's command; not saved, so a restarted server
ticks at 20 until the trial has seen the guard's check) so that a trial takes seconds. Shared by
tests/chaos and bench/chaos.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from bot.background.crash_guard import ALERT_TYPE
from bot.background.doubt import DOUBT_TYPE
from bot.config import ServerConfig
from bot.events.event import Event
from bot.minecraft.rcon import RconClient
from bot.services import Services, build_services
from bot.store.schedules import Creator
from bot.testkit.harness import make_settings
from mcsim.server import Server
from tests.e2e.test_acceptance_crash import PASSWORD, McsimProcess
from tests.fixtures import said_in_logs

__all__ = ["Outcome", "Rig", "Trial", "count_runs", "run_trial", "seed_world"]

ROOT = Path(__file__).resolve().parents[2]
WAIT = 30.0
AUTOSAVE = 6000  # server ticks from start-up to the first autosave (MinecraftServer)
FREEZE_LEAD = 20  # ticks before a freeze_at tick at which the rig freezes and steps the rest
CREATOR = Creator(1, "chaos")
# where the bot reads the pack's events: the log on this machine, the log over SFTP, the ring
Source = Literal["log", "sftp", "rcon"]
SOURCES: tuple[Source, ...] = ("log", "sftp", "rcon")


@dataclass(frozen=True)
class Trial:
    """Ticks are counted from `base`, a game time a little after the trial started.

    game: game-time tasks, task i due at base + due_from + i * due_step; wall: wall-clock rows,
    row i due wall_from + i * wall_step seconds after they are made; save: what saves the world
    after the tasks are made and before `kill_at` (save-all at `save_at`, or the autosave,
    which then falls at base + save_at: the trial places base for that), only if it comes
    before kill_at: SIGKILL once the game time reaches base + kill_at; down: seconds before the
    restart; rate: tick rate."""

    game: int = 20
    due_from: int = 200
    due_step: int = 10
    wall: int = 0
    wall_from: float = 1.0
    wall_step: float = 0.1
    save: Literal["save-all", "autosave", "none"] = "save-all"
    save_at: int = 190
    kill_at: int = 500
    down: float = 0.0
    rate: int = 200
    source: Source = "log"
    poll: float = 0.05  # DOOM_RCON_POLL_INTERVAL of the rcon source, seconds


@dataclass
class Outcome:
    runs: dict[str, int]  # task -> how often it ran, in the server's logs
    ran_before_kill: dict[str, int]
    alerts: list[Event]
    saved: set[str]  # tasks queued in the save (so in the world the restart came back with)
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)

    @property
    def doubted(self) -> list[str]:
        """Tasks an in-doubt alert named (the rcon source: run in the last poll interval)."""
        said = " ".join(
            str(v) for a in self.alerts if a.type == DOUBT_TYPE for v in a.details.values()
        )
        return sorted(t for t in self.runs if f"{t} (due" in said)

    @property
    def lost(self) -> list[str]:
        # a task in doubt whose policy skipped it ran once before the crash or is named
        return sorted(t for t, n in self.runs.items() if n == 0 and t not in self.doubted)

    @property
    def twice(self) -> list[str]:
        return sorted(t for t, n in self.runs.items() if n > 1)

    def needs_repair(self) -> list[str]:
        """Game-time tasks the rollback broke: in the save and run before the kill (would run
        again), or made after the save and not run before it (lost)."""
        return sorted(
            t
            for t in self.runs
            if t.startswith("g") and (t in self.saved) == (self.ran_before_kill[t] > 0)
        )


def count_runs(world: Path, names: list[str]) -> dict[str, int]:
    return {n: said_in_logs(world, f"run-{n}") for n in names}


def seed_world(world: Path) -> int:
    """A world with the pack, saved; returns its game time."""
    (world / "datapacks").mkdir(parents=True)
    shutil.copytree(ROOT / "datapack", world / "datapacks" / "doom.schedule")
    seed = Server(world)
    seed.start()
    seed.step(5)
    seed.stop()
    props = world / "server.properties"
    props.write_text(props.read_text() + "\npause-when-empty-seconds=0\n")
    return seed.game_time


def server_config(world: Path, port: int, source: Source) -> ServerConfig:
    """The bot's settings of the trial's server, reading its events from `source`. The seam for
    another source: `sftp` needs the world behind an OpenSSH server (tests/sftp), which this
    rig does not start."""
    if source == "log":
        return ServerConfig(
            name="main",
            rcon_port=port,
            rcon_password=PASSWORD,  # type: ignore[arg-type]
            world_dir=world,
            log_path=world / "logs" / "latest.log",
            event_source="log",
        )
    if source == "rcon":
        # as on a rented server: no log to read, the pack's ring polled over RCON
        return ServerConfig(
            name="main",
            rcon_port=port,
            rcon_password=PASSWORD,  # type: ignore[arg-type]
            world_dir=world,
            event_source="rcon",
        )
    raise NotImplementedError(f"the chaos rig cannot read events from {source!r} yet")


class Rig:
    def __init__(
        self, world: Path, data: Path, *, source: Source = "log", poll: float = 0.05
    ) -> None:
        self.world = world
        self.data = data
        self.source = source
        self.poll = poll
        self.proc = McsimProcess(world)
        self.alerts: list[Event] = []
        self.services: Services | None = None
        self.admin: RconClient | None = None

    async def game_time(self) -> int:
        assert self.admin is not None
        reply = await self.admin.command("time query gametime")
        return int(reply.rsplit(" ", 1)[-1])

    async def freeze_at(self, tick: int) -> None:
        """The game frozen at `tick`: frozen a little before, then stepped to it, so a loaded
        machine's late look (at the trials' rates a tick is 5 ms) does not overshoot it; at
        once where the game time is past it already."""
        assert self.admin is not None
        await self.until_time(tick - FREEZE_LEAD)
        await self.admin.command("tick freeze")
        await self.step_to(tick)

    async def step_to(self, tick: int) -> None:
        """The frozen game stepped to `tick` (left where it is if past it)."""
        assert self.admin is not None
        now = await self.game_time()
        if now < tick:
            await self.admin.command(f"tick step {tick - now}")
            await self.until_time(tick)

    async def until_time(self, tick: int) -> None:
        async with asyncio.timeout(WAIT):
            while await self.game_time() < tick:  # noqa: ASYNC110 (another process's clock)
                await asyncio.sleep(0.003)

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[Services]:
        await self.proc.start()
        sshd = None
        if self.source == "sftp":  # the log over SFTP from an sshd of the trial's own
            from tests.chaos.sftp_rig import sftp_config, start_sshd

            sshd = await start_sshd(self.data / "sshd")
            config = sftp_config(self.world, self.proc.port, sshd)
        else:
            config = server_config(self.world, self.proc.port, self.source)
        settings = make_settings(
            self.data,
            [config],
            log_poll_interval=0.02,
            rcon_poll_interval=self.poll,
            max_late=60.0,
        )
        services = self.services = await build_services(settings)
        # a restart on a busy machine can take seconds: ask again at least every second, so
        # that the doubling backoff does not leave the bot waiting long after the server is up
        self.admin = RconClient(
            "127.0.0.1",
            self.proc.port,
            PASSWORD,
            timeout=20,
            backoff_initial=0.02,
            backoff_max=1.0,
        )
        services.servers["main"].rcon.backoff_initial = 0.02
        services.servers["main"].rcon.backoff_max = 1.0
        await services.start()
        reader = asyncio.create_task(self._read(services))
        try:
            yield services
        finally:
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader
            await self.admin.close()
            await services.close()
            await self.proc.kill()
            if sshd is not None:
                await asyncio.to_thread(sshd.stop)

    async def _read(self, services: Services) -> None:
        """What the alerts cog does: read the server's event stream (the guard's record follows
        the pack's events as they pass), keeping the restore and in-doubt alerts."""
        source = services.servers["main"].events
        assert source is not None
        async with services.bus.subscribe("main", source) as sub:
            async for event in sub:
                if event.type in (ALERT_TYPE, DOUBT_TYPE):
                    self.alerts.append(event)

    async def wall_runs_finished(
        self, rows: dict[str, int], outcomes: dict[str, list[str]]
    ) -> None:
        """Until every wall-clock row has a run that is no longer being sent (handed over, or
        finished badly: missed, failed), with each row's outcomes in `outcomes`."""
        try:
            async with asyncio.timeout(WAIT):
                await self._until_runs_finished(rows, outcomes)
        except TimeoutError:
            raise AssertionError(f"wall-clock runs still being sent: {outcomes}") from None

    async def _until_runs_finished(
        self, rows: dict[str, int], outcomes: dict[str, list[str]]
    ) -> None:
        assert self.services is not None and self.services.scheduler is not None
        scheduler = self.services.scheduler
        while True:
            for name, schedule_id in rows.items():
                outcomes[name] = [r.outcome for r in await scheduler.runs(schedule_id)]
            if all(o and "sending" not in o for o in outcomes.values()):
                return
            await asyncio.sleep(0.05)

    async def guard_idle(self, checks: int) -> None:
        assert self.services is not None
        guard = self.services.servers["main"].guard
        assert guard is not None
        async with asyncio.timeout(WAIT):
            while not (guard.checks > checks and guard.idle.is_set()):  # noqa: ASYNC110
                await asyncio.sleep(0.01)


async def run_trial(tmp: Path, trial: Trial) -> Outcome:
    began = time.monotonic()
    world = tmp / "world"
    start_time = seed_world(world)
    rig = Rig(world, tmp, source=trial.source, poll=trial.poll)
    names = [f"g{i}" for i in range(trial.game)] + [f"w{i}" for i in range(trial.wall)]
    saved: set[str] = set()
    outcomes: dict[str, list[str]] = {}
    async with rig.running() as services:
        guard = services.servers["main"].guard
        assert guard is not None and services.scheduler is not None
        await rig.guard_idle(0)  # the first look: the pack now holds after each load
        assert rig.admin is not None
        pack = services.servers["main"].pack
        if trial.save == "autosave":
            # the autosave falls AUTOSAVE server ticks after start-up: base is placed so that
            # it is at base + save_at; run fast up to a little before the tasks are made
            # (the countdown runs frozen or not, so this approach never freezes); slower near
            # the end, so that a loaded machine's late look overshoots by few ticks
            base = start_time + AUTOSAVE - trial.save_at
            await rig.admin.command("tick rate 3000")
            await rig.until_time(base - 2000 - 3 * trial.rate)
            await rig.admin.command("tick rate 1000")
            await rig.until_time(base - 3 * trial.rate)
            await rig.admin.command(f"tick rate {trial.rate}")
        else:
            await rig.admin.command("save-all")  # cfg.hold is in the world from here on
            # frozen while the game-time tasks are made, however long that takes on a loaded
            # machine
            await rig.admin.command("tick freeze")
            base = await rig.game_time() + trial.rate // 2
            await rig.admin.command(f"tick rate {trial.rate}")
        for i in range(trial.game):
            await pack.schedule(
                f"say run-g{i}", 0, "t", f"g{i}", at_tick=base + trial.due_from + i * trial.due_step
            )
        # with no wall-clock rows and a save-all, the game stays frozen up to the save and is
        # stepped to it exactly: running, a loaded machine's late look could pass the due ticks
        held = trial.save == "save-all" and trial.wall == 0
        if trial.save != "autosave" and not held:
            await rig.admin.command("tick unfreeze")  # the wall-clock rows' seconds count from here
        wall_rows: dict[str, int] = {}
        for i in range(trial.wall):
            delay = trial.wall_from + i * trial.wall_step
            row = await services.scheduler.create(
                server="main",
                command=f"say run-w{i}",
                task_id=f"w{i}",
                created_by=CREATOR,
                when=f"in {max(1, round(delay))}s",
            )
            wall_rows[f"w{i}"] = row.id
        made_at = await rig.game_time()
        if trial.save != "none" and made_at < base + trial.save_at < base + trial.kill_at:
            saved_at = base + trial.save_at  # the autosave's game time
            if trial.save == "save-all":
                # frozen for the save, so that what it holds is known to the tick
                if held:
                    await rig.step_to(base + trial.save_at)
                else:
                    await rig.freeze_at(base + trial.save_at)
                await rig.admin.command("save-all")
                saved_at = await rig.game_time()
                await rig.admin.command("tick unfreeze")
            saved = {  # a task runs in the tick that takes game time to its due tick
                f"g{i}"
                for i in range(trial.game)
                if base + trial.due_from + i * trial.due_step > saved_at
            }
        elif held:  # no save after all (it would come after the kill)
            await rig.admin.command("tick unfreeze")
        await rig.freeze_at(base + trial.kill_at)  # not saved: the restarted server runs
        await rig.proc.kill()
        before = count_runs(world, names)
        checks = guard.checks
        await asyncio.sleep(trial.down)
        await rig.proc.start()
        await rig.guard_idle(checks)
        if await rig.game_time() < base - 2 * trial.rate:  # back to a save far before the tasks
            await rig.admin.command("tick rate 3000")
            await rig.until_time(base - trial.rate)
        await rig.admin.command(f"tick rate {trial.rate}")
        last_due = base + trial.due_from + trial.game * trial.due_step
        await rig.until_time(last_due + 40)
        if trial.wall:
            await rig.wall_runs_finished(wall_rows, outcomes)
            await services.scheduler.settled()
        await asyncio.sleep(0.3)  # the tail of the log, and any late alert
        after = count_runs(world, names)
    notes = [f"{w}: {', '.join(o)}" for w, o in outcomes.items() if o != ["ran"]]
    return Outcome(after, before, list(rig.alerts), saved, time.monotonic() - began, notes)
