"""The selftest's checks, run in order against one server through the bot's own services.

The timed checks overlap: the marker task is queued first (it runs 20 ticks later), the checks
that need no ticks run while it waits, then its events are awaited. At 20 TPS a run takes a
few seconds (`python bench/selftest_duration.py` prints it).

Everything it makes carries its own names: task ids `doom.selftest.<run>.<what>`, the scratch
objective `doom.selftest`, the storage `doom.selftest:run`. All of it is removed in a `finally`
that a cancellation cannot cut short; the storage holds the run's token while it runs, so a run
that was killed outright is cleaned up by the next one.
"""

from __future__ import annotations

__all__ = ["Selftest", "run_selftest"]

import asyncio
import contextlib
import logging
import secrets
import time
from pathlib import Path
from typing import TYPE_CHECKING

from bot.errors import BotError
from bot.i18n import Joined, Lazy, lazy
from bot.minecraft.installer import bundled_datapack
from bot.minecraft.pack_input import snbt_string
from bot.minecraft.selftest import facts
from bot.minecraft.selftest.base import (
    KINDS,
    MARKER_DELAY,
    OBJECTIVE,
    RETRIES,
    RETRY_DELAY,
    SELFTEST_PREFIX,
    STORAGE,
)
from bot.minecraft.selftest.checks_pack import PackChecks
from bot.minecraft.selftest.checks_timed import TimedChecks
from bot.minecraft.selftest.result import SelftestResult

if TYPE_CHECKING:
    from bot.minecraft.pack_tasks import Task
    from bot.minecraft.selftest.probe import EventProbe
    from bot.services import ServerServices

log = logging.getLogger(__name__)


async def run_selftest(server: ServerServices, *, pack_dir: Path | None = None) -> SelftestResult:
    """Run every check against `server`; the result lists them (see SelftestResult.lines)."""
    return await Selftest(server, pack_dir=pack_dir).run()


class Selftest(PackChecks, TimedChecks):
    """One run. `run()` may be cancelled at any point; it still removes what it made."""

    def __init__(self, server: ServerServices, *, pack_dir: Path | None = None) -> None:
        self.server = server
        self.rcon = server.rcon
        self.pack = server.pack
        self.pack_dir = pack_dir or bundled_datapack()
        self.token = secrets.token_hex(3)
        self.ids = {k: f"{SELFTEST_PREFIX}{self.token}.{k}" for k in KINDS}
        self.result = SelftestResult(server.name)
        self.probe: EventProbe | None = None
        self.touched = False  # wrote the token, objective or tasks: cleanup has work
        self.g0 = (0.0, 0)  # (monotonic s, game time) at the start
        self.ticking = False
        self._hostile_queued: str | None = None
        self.stage = "rcon"  # the check in progress, named if an error stops the run
        self.queued = False  # queued tasks of its own: cleanup cancels them

    async def run(self) -> SelftestResult:
        started = time.monotonic()
        try:
            await self._checks()
        except BotError as exc:  # the server went away or refused mid-run: say where
            self._add("FAIL", self.stage, lazy("stopped the selftest: {error}", error=exc))
        finally:
            cleanup = asyncio.ensure_future(self._cleanup())
            try:
                await asyncio.shield(cleanup)
            except asyncio.CancelledError:
                # interrupted: finish removing what we made, then let the cancellation go on
                with contextlib.suppress(Exception):
                    await cleanup
                raise
            finally:
                self.result.duration = time.monotonic() - started
        return self.result

    async def _checks(self) -> None:
        config = self.server.config
        try:
            self.g0 = (time.monotonic(), await self._game_time())
        except BotError as exc:
            self._add(
                "FAIL",
                "rcon",
                lazy(
                    "{error} Check rcon_host, rcon_port and rcon_password of {server} and "
                    "enable-rcon=true in server.properties.",
                    error=exc,
                    server=repr(config.name),
                ),
            )
            return
        self._add(
            "PASS",
            "rcon",
            lazy("{host}:{port} answers", host=config.rcon_host, port=config.rcon_port),
        )
        self.stage = "server software"
        software = await self.server.ensure_software()
        known = software.family != "unknown"
        self._add("PASS" if known else "WARN", "server software", software.describe())
        self.stage = "pack enabled"
        pack_ok = await self._check_pack()
        self.stage = "setup"
        await self._begin(pack_ok)
        window = facts.LogWindow(config.log_path)
        await self.rcon.command(f"scoreboard players set #echo.{self.token} {OBJECTIVE} 1")
        self.stage = "command budget"
        budget_ok = await self._check_budget()
        unusable = (
            lazy("not checked: the pack is not usable (see above)")
            if not pack_ok
            else lazy("not checked: the command budget is too small (see command budget)")
        )
        pack_ok = pack_ok and budget_ok
        marker: Task | None = None
        if pack_ok:
            self.stage = "event source"
            await self._start_probe()
            self.stage = "marker task"
            self.queued = True
            marker = await self.pack.schedule(
                self._failing(),
                MARKER_DELAY,
                "t",
                self.ids["marker"],
                retry=RETRIES,
                retry_delay=RETRY_DELAY,
            )
            self.stage = "hostile run text"
            hostile_run = await self._schedule_hostile()
            self.stage = "cancel_all counts"
            await self._check_cancel_all()
            self.stage = "pause/resume"
            paused = await self._pause()
        self.stage = "game time"
        await self._check_game_time()
        if pack_ok and self.ticking:
            self.stage = "pause/resume"
            await self._check_resume(*paused)
            self.stage = "hostile run text"
            await self._check_hostile(hostile_run)
            self.stage = "marker task"
            await self._check_marker(marker)
        elif pack_ok:
            why = lazy("not checked: the game time does not advance (see game time)")
            for name in ("pause/resume", "hostile run text", "marker task", "event source"):
                self._add("WARN", name, why)
            self._add("WARN", "retry counts", why)
        else:
            why = unusable
            for name in ("marker task", "event source", "retry counts", "pause/resume"):
                self._add("WARN", name, why)
            self._add("WARN", "cancel_all counts", why)
            self._add("WARN", "hostile run text", why)
        self.stage = "measured TPS"
        await self._check_tps()
        self._check_broadcast(window)

    async def _begin(self, pack_ok: bool) -> None:
        """Clean up after a run that was killed, then mark this run and make the objective."""
        left = await self._read(STORAGE, "token")
        self.touched = True
        if pack_ok and isinstance(left, str) and left != self.token:
            log.info("cleaning up after an unfinished selftest run %s", left)
            for kind in KINDS:
                with contextlib.suppress(BotError):
                    await self.pack.cancel_all(f"{SELFTEST_PREFIX}{left}.{kind}")
        await self.rcon.command(
            f"data modify storage {STORAGE} token set value {snbt_string(self.token)}"
        )
        await self.rcon.command(f"scoreboard objectives add {OBJECTIVE} dummy")

    async def _cleanup(self) -> None:
        """Each step on its own, so one that fails does not keep the others from running."""
        if self.probe is not None:
            await self.probe.stop()
        if not self.touched:
            return
        problems: list[Lazy] = []
        for task_id in self.ids.values() if self.queued else ():
            try:
                await self.pack.cancel_all(task_id)
                if await self.pack.count(task_id):
                    problems.append(lazy("task {id} is still queued", id=task_id))
            except BotError as exc:
                problems.append(lazy("cancelling {id}: {error}", id=task_id, error=exc))
        commands = [
            f"scoreboard objectives remove {OBJECTIVE}",
            f"data remove storage {STORAGE} got",
        ]
        if not problems:  # else the token stays, so the next run knows which tasks to cancel
            commands.append(f"data remove storage {STORAGE} token")
        for command in commands:
            try:
                await self.rcon.command(command)
            except BotError as exc:
                problems.append(lazy("`{command}`: {error}", command=command, error=exc))
        if problems:
            self._add(
                "FAIL",
                "cleanup",
                lazy(
                    "{problems}; the next selftest removes what is left (tasks {tasks}, "
                    "objective {objective})",
                    problems=Joined(problems, "; "),
                    tasks=f"{SELFTEST_PREFIX}{self.token}.*",
                    objective=OBJECTIVE,
                ),
            )
        else:
            self._add("PASS", "cleanup", lazy("its tasks, objective and storage are removed"))
