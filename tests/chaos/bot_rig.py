"""One bot-kill trial: mcsim as its own process, the bot as its own process (`python -m bot
console` on a pipe, tests.e2e.bot_process) reaching it through a real TCP proxy; a moderator
types game-time tasks and wall-clock rows (`when:in Ns`); the bot gets SIGKILL at a chosen
moment, or right after a wall-clock hand-over's submit reached the server and ran there (the
proxy holds its answer back), and is started again on the same data dir `down` seconds later.
Every run is counted in the server's own logs; the bot's record of each row is read from its
database. Shared by tests/chaos and bench/chaos.py."""

from __future__ import annotations

import asyncio
import contextlib
import re
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path

from bot.__main__ import LOG_FILE
from bot.store.db import DB_FILE
from tests.chaos.rig import WAIT, count_runs, seed_world
from tests.e2e.bot_process import BotProcess
from tests.e2e.test_acceptance_crash import McsimProcess
from tests.wallclock.wallclock_sim import TcpProxy

__all__ = ["HANDOVER", "KillOutcome", "KillTrial", "run_kill_trial"]

ACKS = ("Scheduled {} on", "Planned {} on")  # the console's answer for a task, for a row


def HANDOVER(data: bytes) -> bool:
    """A wall-clock hand-over's submit (it carries the mark), not an ordinary /schedule's."""
    return b"doom.schedule:submit" in data and b"doom.bot:wallclock" in data


_MARKED_ROW = re.compile(rb"doom\.bot:wallclock done\.s(\d+)r\d+")  # the mark's key: s<row>r<run>


@dataclass(frozen=True)
class KillTrial:
    """game: game-time tasks, task i due `due_from + i * due_step` ticks after its /schedule;
    wall: rows, row i `when:in Ns` with N from wall_from to wall_to seconds; kill_at: SIGKILL
    this many seconds after the first /schedule was typed, or None: at the first wall-clock
    hand-over whose submit the server ran; down: seconds before the restart."""

    game: int = 20
    due_from: int = 40
    due_step: int = 5
    wall: int = 20
    wall_from: int = 1
    wall_to: int = 6
    kill_at: float | None = None
    down: float = 0.5
    max_late: float = 60.0  # DOOM_MAX_LATE: under the 5 s grace, a row late past grace is missed


@dataclass
class KillOutcome:
    runs: dict[str, int]  # task -> how often it ran, in the server's logs
    acknowledged: set[str]  # the console answered Scheduled / Planned
    in_flight: set[str]  # typed, unanswered when the bot died (may or may not be there)
    wall_outcomes: dict[str, list[str]]  # row -> its runs' outcomes in the bot's database
    alerted: set[str]  # rows a missed alert named (the scheduler logs each alert it posts)
    killed_after: float  # seconds from the first /schedule to the SIGKILL
    printed: str  # what the restarted bot printed
    sending_at_kill: list[str]  # rows whose run was being handed over when the bot died
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)
    # of sending_at_kill, the row whose submit the server ran right before the kill (the others
    # were still waiting their turn on the RCON connection: nothing of theirs reached it)
    submitted_at_kill: list[str] = field(default_factory=list)

    @property
    def lost(self) -> list[str]:
        """Acknowledged, never run, and (a row) not marked missed and alerted."""
        return sorted(
            t
            for t in self.acknowledged
            if self.runs[t] == 0
            and not (t.startswith("w") and "missed" in self.wall_outcomes[t] and t in self.alerted)
        )

    @property
    def twice(self) -> list[str]:
        return sorted(t for t, n in self.runs.items() if n > 1)


def _task_ids(data: Path, row_ids: list[int]) -> list[str]:
    db = sqlite3.connect(f"file:{data / DB_FILE}?mode=ro", uri=True, timeout=10)
    try:
        return sorted(
            task_id
            for row_id, task_id in db.execute("SELECT id, task_id FROM schedules")
            if row_id in row_ids
        )
    finally:
        db.close()


def _row_outcomes(data: Path) -> dict[str, list[str]]:
    db = sqlite3.connect(f"file:{data / DB_FILE}?mode=ro", uri=True, timeout=10)
    try:
        found: dict[str, list[str]] = {}
        for task_id, outcome in db.execute(
            "SELECT s.task_id, r.outcome FROM schedules s "
            "LEFT JOIN schedule_runs r ON r.schedule_id = s.id ORDER BY r.id"
        ):
            found.setdefault(task_id, [])
            if outcome is not None:
                found[task_id].append(outcome)
        return found
    finally:
        db.close()


async def _console(tmp: Path, port: int, world: Path, max_late: float) -> BotProcess:
    bot = BotProcess(tmp, port, rcon_timeout=5)
    bot.env.update(DOOM_MAX_LATE=format(max_late, "g"), DOOM_SERVERS__0__WORLD_DIR=str(world))
    await bot.start("-m", "bot", "console")
    await bot.expect("type /help, or quit")
    return bot


def _commands(trial: KillTrial) -> list[tuple[str, str]]:
    game = [
        (
            f"g{i}",
            f"/schedule run:say run-g{i} time:{trial.due_from + i * trial.due_step} "
            f"unit:tick id:g{i}",
        )
        for i in range(trial.game)
    ]
    span = trial.wall_to - trial.wall_from
    wall = [
        (
            f"w{i}",
            f"/schedule run:say run-w{i} "
            f"when:in {trial.wall_from + round(i * span / max(trial.wall - 1, 1))}s "
            f"id:w{i}",
        )
        for i in range(trial.wall)
    ]
    mixed = [c for pair in zip(game, wall, strict=False) for c in pair]
    longer = game if len(game) > len(wall) else wall
    return mixed + longer[len(mixed) // 2 :]


async def _type_all(
    bot: BotProcess, todo: list[tuple[str, str]], acked: set[str], typed: list[str]
) -> None:
    """Type each command and wait for its answer, until the bot dies."""
    for name, line in todo:
        if not bot.alive:
            return
        typed.append(name)
        try:
            mark = await bot.type(line)
        except (ConnectionResetError, BrokenPipeError):
            return  # killed while the line was on its way: in flight, like an unanswered one
        loop = asyncio.get_running_loop()
        deadline = loop.time() + WAIT
        while not any(a.format(name) in bot.out[mark:] for a in ACKS):
            if not bot.alive:
                return
            if loop.time() > deadline:
                raise AssertionError(f"no answer to {line!r}:\n{bot.out[mark:]}\n{bot.err[-3000:]}")
            await asyncio.sleep(0.02)
        acked.add(name)


async def run_kill_trial(tmp: Path, trial: KillTrial) -> KillOutcome:
    began = time.monotonic()
    world = tmp / "world"
    seed_world(world)
    mcsim = McsimProcess(world)
    await mcsim.start()
    proxy = TcpProxy(mcsim.port)
    await proxy.start()
    data = tmp / "botdata"
    todo = _commands(trial)
    names = [n for n, _ in todo]
    acked: set[str] = set()
    typed: list[str] = []
    bot = await _console(tmp, proxy.port, world, trial.max_late)
    again: BotProcess | None = None
    killer: asyncio.Task[None] | None = None
    try:
        killed = asyncio.Event()

        def kill() -> None:
            if bot.proc is not None and bot.proc.returncode is None:
                bot.proc.kill()
            killed.set()

        first = time.monotonic()
        submitted: list[int] = []

        def handover(data: bytes) -> bool:
            if not HANDOVER(data):
                return False
            submitted.extend(int(m) for m in _MARKED_ROW.findall(data))
            return True

        if trial.kill_at is None:
            proxy.watch = (handover, kill)
        else:
            at = trial.kill_at

            async def later() -> None:
                await asyncio.sleep(at)
                kill()

            killer = asyncio.create_task(later())
        await _type_all(bot, todo, acked, typed)
        async with asyncio.timeout(WAIT):
            await killed.wait()
        killed_after = time.monotonic() - first
        assert bot.proc is not None
        await asyncio.wait_for(bot.proc.wait(), WAIT)
        in_flight = {n for n in typed if n not in acked}
        sending = sorted(n for n, o in _row_outcomes(data).items() if "sending" in o)
        submitted_rows = _task_ids(data, submitted)
        await asyncio.sleep(trial.down)
        again = await _console(tmp, proxy.port, world, trial.max_late)
        # what the moderator never got to type goes in now
        await _type_all(again, [(n, line) for n, line in todo if n not in typed], acked, typed)
        assert again.alive, again.err[-3000:]
        outcomes: dict[str, list[str]] = {}
        async with asyncio.timeout(WAIT):
            while True:
                outcomes = _row_outcomes(data)
                rows = [o for n, o in outcomes.items() if n in acked]
                ran = count_runs(world, sorted(n for n in acked if n.startswith("g")))
                if all(o and "sending" not in o for o in rows) and all(ran.values()):
                    break
                await asyncio.sleep(0.1)
        await asyncio.sleep(0.5)  # the tail of the log, a late alert
        runs = count_runs(world, names)
        printed = again.out
        mark = await again.type("quit")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(again.proc.wait(), 20)  # type: ignore[union-attr]
        del mark
    finally:
        if killer is not None:
            killer.cancel()
        await bot.kill()
        if again is not None:
            await again.kill()
        await proxy.close()
        await mcsim.kill()
    log = (data / LOG_FILE).read_text(errors="replace")
    alerted = {n for n in names if f"wallclock_missed {n} on main" in log}
    for name in names:
        outcomes.setdefault(name, [])
    notes = [f"{w}: {', '.join(o)}" for w, o in outcomes.items() if w[0] == "w" and o != ["ran"]]
    return KillOutcome(
        runs,
        acked,
        in_flight,
        outcomes,
        alerted,
        killed_after,
        printed,
        sending,
        time.monotonic() - began,
        notes,
        submitted_rows,
    )
