"""One bot-kill trial: mcsim as its own process, the bot as its own process (`python -m bot
console` on a pipe, tests.e2e.bot_process, or `python -m bot serve` and its API) reaching it
through a real TCP proxy; a moderator types (or a script posts) game-time tasks and wall-clock
rows (`when:in Ns`); the bot gets SIGKILL at a chosen
moment, or right after a wall-clock hand-over's submit reached the server and ran there (the
proxy holds its answer back), and is started again on the same data dir `down` seconds later.
Every run is counted in the server's own logs; the bot's record of each row is read from its
database. Shared by tests/chaos and bench/chaos.py."""

from __future__ import annotations

import asyncio
import contextlib
import re
import sqlite3
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import aiohttp

from bot.__main__ import LOG_FILE
from bot.store.db import DB_FILE
from tests.chaos.rig import WAIT, count_runs, seed_world
from tests.e2e.bot_process import BotProcess
from tests.e2e.test_acceptance_crash import McsimProcess
from tests.wallclock.wallclock_sim import TcpProxy

__all__ = ["HANDOVER", "KillOutcome", "KillTrial", "Layout", "run_kill_trial"]

ACKS = ("Scheduled {} on", "Planned {} on")  # the console's answer for a task, for a row


def HANDOVER(data: bytes) -> bool:
    """A wall-clock hand-over's submit (it carries the mark), not an ordinary /schedule's."""
    return b"doom.schedule:submit" in data and b"doom.bot:wallclock" in data


_MARKED_ROW = re.compile(rb"doom\.bot:wallclock done\.s(\d+)r\d+")  # the mark's key: s<row>r<run>


Layout = Literal["console", "serve"]


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
    # the process layout: the console on a pipe, or `serve` with the tasks posted to its API
    layout: Layout = "console"


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


Fields = dict[str, str | int]


@dataclass(eq=False)
class Face:
    """The bot's process and how a request reaches it: typed into its console, or posted to
    its API with a token (`base` is the API's address)."""

    bot: BotProcess
    base: str = ""
    token: str = ""

    async def submit(self, fields: Fields) -> bool | None:
        """True when answered as made; None when the process died before answering."""
        if not self.base:
            line = "/schedule " + " ".join(f"{k}:{v}" for k, v in fields.items())
            try:
                mark = await self.bot.type(line)
            except (ConnectionResetError, BrokenPipeError):
                return None  # killed while the line was on its way: in flight
            return await self._answered(str(fields["id"]), mark)
        url = f"{self.base}/api/servers/main/tasks"
        headers = {"Authorization": f"Bearer {self.token}"}
        try:
            async with (
                aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=WAIT)) as http,
                http.post(url, json=fields, headers=headers) as r,
            ):
                assert r.status == 201, (fields, r.status, await r.text())
                return True
        except aiohttp.ClientError:
            return None  # the connection died with the process: in flight

    async def _answered(self, name: str, mark: int) -> bool | None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + WAIT
        while not any(a.format(name) in self.bot.out[mark:] for a in ACKS):
            if not self.bot.alive:
                return None
            if loop.time() > deadline:
                raise AssertionError(f"no answer for {name}:\n{self.bot.out[mark:]}")
            await asyncio.sleep(0.02)
        return True


async def _start(tmp: Path, port: int, world: Path, trial: KillTrial) -> Face:
    bot = BotProcess(tmp, port, rcon_timeout=5)
    bot.env.update(DOOM_MAX_LATE=format(trial.max_late, "g"), DOOM_SERVERS__0__WORLD_DIR=str(world))
    if trial.layout == "console":
        await bot.start("-m", "bot", "console")
        await bot.expect("type /help, or quit")
        return Face(bot)
    bot.env["DOOM_WEB_PORT"] = "0"
    token = await _api_token(bot)
    await bot.start("-m", "bot", "serve")
    said = await bot.expect("Serving the dashboard and API at ")
    found = re.search(r"http://127\.0\.0\.1:\d+", said)
    assert found is not None, said
    return Face(bot, found[0], token)


async def _api_token(bot: BotProcess) -> str:
    """The script's token (`python -m bot token new`), made once: it outlives a restart."""
    tokens = bot.cwd / "api-token"
    if tokens.exists():
        return tokens.read_text()
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        *("-m", "bot", "token", "new", "chaos"),
        env=bot.env,
        cwd=bot.cwd,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), WAIT)
    assert proc.returncode == 0, err.decode()
    tokens.write_text(out.decode().strip())
    return tokens.read_text()


def _commands(trial: KillTrial) -> list[tuple[str, Fields]]:
    game: list[tuple[str, Fields]] = [
        (
            f"g{i}",
            {
                "run": f"say run-g{i}",
                "time": trial.due_from + i * trial.due_step,
                "unit": "tick",
                "id": f"g{i}",
            },
        )
        for i in range(trial.game)
    ]
    span = trial.wall_to - trial.wall_from
    wall: list[tuple[str, Fields]] = [
        (
            f"w{i}",
            {
                "run": f"say run-w{i}",
                "when": f"in {trial.wall_from + round(i * span / max(trial.wall - 1, 1))}s",
                "id": f"w{i}",
            },
        )
        for i in range(trial.wall)
    ]
    mixed = [c for pair in zip(game, wall, strict=False) for c in pair]
    longer = game if len(game) > len(wall) else wall
    return mixed + longer[len(mixed) // 2 :]


async def _type_all(
    face: Face, todo: list[tuple[str, Fields]], acked: set[str], typed: list[str]
) -> None:
    """Send each request and wait for its answer, until the bot dies."""
    for name, fields in todo:
        if not face.bot.alive:
            return
        typed.append(name)
        if not await face.submit(fields):
            return
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
    face = await _start(tmp, proxy.port, world, trial)
    bot = face.bot
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
        await _type_all(face, todo, acked, typed)
        async with asyncio.timeout(WAIT):
            await killed.wait()
        killed_after = time.monotonic() - first
        assert bot.proc is not None
        await asyncio.wait_for(bot.proc.wait(), WAIT)
        in_flight = {n for n in typed if n not in acked}
        sending = sorted(n for n, o in _row_outcomes(data).items() if "sending" in o)
        submitted_rows = _task_ids(data, submitted)
        await asyncio.sleep(trial.down)
        back = await _start(tmp, proxy.port, world, trial)
        again = back.bot
        # what the moderator never got to send goes in now
        await _type_all(back, [(n, f) for n, f in todo if n not in typed], acked, typed)
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
        if back.base:
            again.proc.terminate()  # type: ignore[union-attr]
        else:
            await again.type("quit")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(again.proc.wait(), 20)  # type: ignore[union-attr]
    finally:
        if killer is not None:
            killer.cancel()
        await bot.kill()
        if again is not None:
            await again.kill()
        await proxy.close()
        await mcsim.kill()
    # the console logs to its file, serve to its stderr
    log = (data / LOG_FILE).read_text(errors="replace") if (data / LOG_FILE).exists() else ""
    log += bot.err + (again.err if again is not None else "")
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
