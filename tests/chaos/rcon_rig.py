"""One RCON-cut trial: mcsim as its own process, a real TCP proxy (tests.wallclock.wallclock_sim)
between it and the bot's real services, and a cutter that, at seeded random intervals of
50-400 ms, either cuts the live connections or takes the proxy down for a moment. Meanwhile a
moderator makes game-time tasks and wall-clock rows with /schedule through the real CommandTree
(bot.testkit.harness), trying again only when the reply says nothing changed. Every run is
counted in the server's own logs. Shared by tests/chaos and bench/chaos.py."""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from dataclasses import dataclass, field
from pathlib import Path

from bot.config import ServerConfig
from bot.services import build_services
from bot.testkit.harness import MOD, Harness, make_settings
from tests.chaos.rig import WAIT, count_runs, seed_world
from tests.e2e.test_acceptance_crash import PASSWORD, McsimProcess
from tests.wallclock.wallclock_sim import TcpProxy

__all__ = ["SCHEDULED", "UNKNOWN", "CutOutcome", "CutTrial", "Cutter", "run_cut_trial"]

# what a reply says when the bot could not tell whether the server ran the request
UNKNOWN = ("may or may not", "may still run")
# what a reply says when the server certainly did not take the request
NOTHING = ("nothing changed", "Cannot reach")
SCHEDULED = ("Scheduled `", "Planned `")  # a game-time task, a wall-clock row


def _acked(reply: str) -> bool:
    return any(s in reply for s in SCHEDULED)


@dataclass(frozen=True)
class CutTrial:
    """game: game-time tasks (task i due `due_from + i * due_step` ticks after its /schedule);
    wall: wall-clock rows (row i due `wall_from + i * wall_step` s after it is made, rounded to
    whole seconds as `when:in Ns` takes them); seed: the cutter's; gap: its interval bounds (s)."""

    game: int = 20
    due_from: int = 60
    due_step: int = 4
    wall: int = 20
    wall_from: float = 2.0
    wall_step: float = 0.25
    seed: int = 1
    gap: tuple[float, float] = (0.05, 0.4)


@dataclass
class CutOutcome:
    runs: dict[str, int]  # task -> how often it ran, in the server's logs
    replies: dict[str, list[str]]  # task -> every /schedule reply it got, in order
    wall_outcomes: dict[str, list[str]]  # row -> its runs' outcomes in the bot's record
    cuts: int
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)

    @property
    def acknowledged(self) -> list[str]:
        return sorted(t for t, r in self.replies.items() if r and _acked(r[-1]))

    @property
    def unknown(self) -> list[str]:
        """Tasks a reply left as "may or may not have run"."""
        return sorted(
            t for t, r in self.replies.items() if any(u in reply for reply in r for u in UNKNOWN)
        )

    @property
    def lost(self) -> list[str]:
        """Acknowledged and never run, or a row that neither ran nor was marked missed."""
        return sorted(
            t
            for t in self.acknowledged
            if self.runs[t] == 0 and not (t.startswith("w") and "missed" in self.wall_outcomes[t])
        )

    @property
    def twice(self) -> list[str]:
        return sorted(t for t, n in self.runs.items() if n > 1)

    @property
    def unasked(self) -> list[str]:
        """Ran although no reply acknowledged it."""
        return sorted(t for t, n in self.runs.items() if n and t not in self.acknowledged)


class Cutter:
    """Cuts a proxy's connections at seeded random moments until stopped: half the time the
    live connections only, else the proxy refuses connections for a moment too."""

    def __init__(self, proxy: TcpProxy, seed: int, gap: tuple[float, float]) -> None:
        self.proxy = proxy
        self.rng = random.Random(seed)
        self.gap = gap
        self.cuts = 0
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        self.proxy.up()

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.rng.uniform(*self.gap))
            self.cuts += 1
            self.proxy.down()  # cuts every open connection, refuses new ones
            if self.rng.random() < 0.5:
                await asyncio.sleep(self.rng.uniform(*self.gap))
            self.proxy.up()


async def _schedule(harness: Harness, replies: list[str], **options: object) -> None:
    """/schedule as a moderator would: again while the reply says nothing changed."""
    async with asyncio.timeout(WAIT):
        while True:
            reply = (await harness.run("schedule", MOD, **options)).text
            replies.append(reply)
            if _acked(reply) or not any(n in reply for n in NOTHING):
                return
            await asyncio.sleep(0.05)


async def run_cut_trial(tmp: Path, trial: CutTrial) -> CutOutcome:
    began = time.monotonic()
    world = tmp / "world"
    seed_world(world)
    mcsim = McsimProcess(world)
    await mcsim.start()
    proxy = TcpProxy(mcsim.port)
    await proxy.start()
    config = ServerConfig(
        name="main",
        rcon_port=proxy.port,
        rcon_password=PASSWORD,  # type: ignore[arg-type]
        world_dir=world,
        log_path=world / "logs" / "latest.log",
        event_source="log",
    )
    settings = make_settings(
        tmp, [config], rcon_timeout=5, audit_channel_id=None, log_poll_interval=0.02, max_late=60.0
    )
    services = await build_services(settings)
    services.servers["main"].rcon.backoff_initial = 0.02
    services.servers["main"].rcon.backoff_max = 0.2
    harness = await Harness(settings, services).start()
    cutter = Cutter(proxy, trial.seed, trial.gap)
    replies: dict[str, list[str]] = {}
    wall_ids: dict[str, int] = {}
    wall_outcomes: dict[str, list[str]] = {}
    names = [f"g{i}" for i in range(trial.game)] + [f"w{i}" for i in range(trial.wall)]
    try:
        scheduler = services.scheduler
        assert scheduler is not None
        cutter.start()
        for i in range(max(trial.game, trial.wall)):  # interleaved, as moderators would
            if i < trial.game:
                name = f"g{i}"
                await _schedule(
                    harness,
                    replies.setdefault(name, []),
                    run=f"say run-{name}",
                    time=trial.due_from + i * trial.due_step,
                    unit="tick",
                    id=name,
                )
            if i < trial.wall:
                name = f"w{i}"
                delay = max(1, round(trial.wall_from + i * trial.wall_step))
                await _schedule(
                    harness,
                    replies.setdefault(name, []),
                    run=f"say run-{name}",
                    when=f"in {delay}s",
                    id=name,
                )
                row = await scheduler.find("main", name)
                if row is not None:
                    wall_ids[name] = row.id
        last_wall = trial.wall_from + trial.wall * trial.wall_step
        # the last game-time task is due ~(due_from + game * due_step) / 20 s after it was made
        await asyncio.sleep(max(last_wall, (trial.due_from + trial.game * trial.due_step) / 20))
        await cutter.stop()
        async with asyncio.timeout(WAIT):
            while True:
                for name, schedule_id in wall_ids.items():
                    wall_outcomes[name] = [r.outcome for r in await scheduler.runs(schedule_id)]
                if all(o and "sending" not in o for o in wall_outcomes.values()):
                    break
                await asyncio.sleep(0.05)
            await scheduler.settled()
            # every acknowledged task's due tick passed and its say reached the log
            acked = [t for t, r in replies.items() if r and _acked(r[-1])]
            while any(n == 0 for n in count_runs(world, acked).values()):  # noqa: ASYNC110
                await asyncio.sleep(0.1)
        await asyncio.sleep(0.5)  # the tail of the log
        runs = count_runs(world, names)
    finally:
        await cutter.stop()
        await harness.close()
        await proxy.close()
        await mcsim.kill()
    for name in names:
        wall_outcomes.setdefault(name, [])
        replies.setdefault(name, [])
    notes = [
        f"{w}: {', '.join(o)}"
        for w, o in wall_outcomes.items()
        if w.startswith("w") and o != ["ran"]
    ]
    return CutOutcome(runs, replies, wall_outcomes, cutter.cuts, time.monotonic() - began, notes)
