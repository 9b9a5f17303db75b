"""Programs started on a `repeat:` (an interval or a cron, as /schedule reads it), on a server or
each server of a group: each occurrence starts one run per server, exactly once.

A repeat's times are a repeating planned row's (bot.times.runs with its DST policy,
bot.times.dst). The watcher looks every `interval` seconds, and when woken, at the active repeats
of the servers this process holds (`Scheduler.owns`). For each, the occurrences since the newest
one decided (bot.store.program_repeats) follow the late rules of a repeating planned row
(bot.wallclock.firing): the latest is started if it is within the scheduler's grace, every other
one (the bot was away) is recorded missed and alerted once (`wallclock_skipped`, with their
count). A started occurrence's run is made in the transaction that records the occurrence
(unique repeat, server, occurrence: bot.store.programs `ProgramStore.start`), so two processes,
a restart or a look repeated after a crash start it once. An occurrence whose program is gone
or refused on its server is recorded refused and alerted (`wallclock_failed`).

The occurrence is the moment the program starts; a program with steps before its start
(`at: -10m`) has its start moved that far after the occurrence, as `program start` now does.
"""

from __future__ import annotations

__all__ = ["RepeatWatcher", "repeat_task_id"]

import asyncio
import itertools
import logging
from datetime import datetime, timedelta
from types import MappingProxyType

from bot.aio import cancel_and_wait
from bot.errors import ValidationError
from bot.events.bot_alerts import BotAlerts
from bot.events.event import Event
from bot.i18n import N_, Text, lazy
from bot.i18n.formats import stamp
from bot.programs.looks import look_every
from bot.programs.model import steps_of_json
from bot.programs.runner import ProgramRunner
from bot.store.program_repeats import ProgramRepeat, RepeatStore
from bot.store.programs import OccurrenceDecided
from bot.times.runs import boundaries, latest_boundary, next_boundary

log = logging.getLogger(__name__)

INTERVAL = 1.0  # seconds between looks at the repeats
# occurrences are whole seconds apart at least; a time read back from the database may be off
# by a microsecond, which must not make the newest decided occurrence look undecided
_SAME = timedelta(milliseconds=1)
_TINY = timedelta(microseconds=1)


def repeat_task_id(repeat: ProgramRepeat) -> str:
    """What its alerts name it by, as a planned row's name its task id."""
    return f"{repeat.program}.repeat.{repeat.id}"


class RepeatWatcher:
    """Starts each occurrence of each repeat once (see the module's text)."""

    def __init__(self, store: RepeatStore, runner: ProgramRunner, interval: float = INTERVAL):
        self.store = store
        self.runner = runner
        self.scheduler = runner.scheduler
        self.interval = interval
        self._lock = asyncio.Lock()
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._alerts: dict[str, BotAlerts] = {}
        self._seq = itertools.count(1)
        self.started = 0  # runs this process started (tests and /status)

    # -- life -----------------------------------------------------------------------------------

    def alerts_of(self, server: str) -> BotAlerts:
        if server not in self._alerts:
            self._alerts[server] = BotAlerts()
        return self._alerts[server]

    async def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._loop(), name="program-repeats")

    async def stop(self) -> None:
        task, self._task = self._task, None
        await cancel_and_wait(task)

    def wake(self) -> None:
        self._wake.set()

    async def _loop(self) -> None:
        await look_every(self.look, self._wake, self.interval, "the program repeats")

    # -- the looks ------------------------------------------------------------------------------

    async def look(self) -> None:
        """Every active repeat on every server this process holds: its due occurrences."""
        async with self._lock:
            repeats = await self.store.repeats(("active",))
            newest = await self.store.newest([r.id for r in repeats])
            for repeat in repeats:
                for server in repeat.servers:
                    if self.scheduler.owns(server):
                        await self._due(repeat, server, newest.get((repeat.id, server)))

    async def _due(self, repeat: ProgramRepeat, server: str, last: datetime | None) -> None:
        spec = repeat.spec
        now = self.scheduler.clock.now()
        after = last + _SAME if last is not None else spec.first_due - _TINY
        latest = latest_boundary(spec, now)
        if latest is None or latest <= after:
            return
        first = next_boundary(spec, after) or latest
        runnable = now - latest <= self.scheduler.grace
        skipped = boundaries(spec, first, latest) - (1 if runnable else 0)
        if skipped > 0:
            # one record for them all, at the newest not run: where the next look goes on from
            at = latest if not runnable else (latest_boundary(spec, latest - _TINY) or first)
            if await self.store.decide(repeat.id, server, at, "missed", now, skipped=skipped):
                self._alert(
                    repeat,
                    server,
                    "wallclock_skipped",
                    first,
                    skipped=str(skipped),
                    reason=self._away(),
                )
        if runnable:
            await self._start(repeat, server, latest)

    async def _start(self, repeat: ProgramRepeat, server: str, occurrence: datetime) -> None:
        program = await self.runner.store.latest(repeat.program)
        reason: Text
        if program is None:
            reason = lazy("there is no program `{name}`", name=repeat.program)
        else:
            earliest = min((s.offset for s in steps_of_json(program.steps)), default=0)
            start = occurrence + timedelta(seconds=max(0, -earliest))
            try:
                run = await self.runner.start_program(
                    program, server, start, repeat.created_by, occurrence=(repeat.id, occurrence)
                )
            except OccurrenceDecided:  # another process recorded it missed or refused first
                return
            except ValidationError as exc:  # refused there now (its rules changed since)
                reason = exc.text
            else:
                self.started += 1
                log.info(
                    "repeat #%d: %s started on %s as run %d",
                    repeat.id,
                    program.name,
                    server,
                    run.id,
                )
                return
        now = self.scheduler.clock.now()
        if await self.store.decide(
            repeat.id, server, occurrence, "refused", now, reason=str(reason)
        ):
            self._alert(repeat, server, "wallclock_failed", occurrence, reason=reason)

    def _away(self) -> Text:
        # on a shared database the processes stop while it is away (their leases cannot be
        # renewed), so a time can pass with every process running (as bot.wallclock.firing)
        if self.store.db.is_sqlite:
            return N_("the bot was not running at those times")
        return N_("the bot was not running, or could not reach its database, at those times")

    def _alert(
        self, repeat: ProgramRepeat, server: str, kind: str, due: datetime, **details: Text
    ) -> None:
        fields: dict[str, Text] = {"program": repeat.program, "due": stamp(due), **details}
        event = Event(
            server, next(self._seq), kind, repeat_task_id(repeat), -1, MappingProxyType(fields)
        )
        log.warning("%s %s on %s: %s", kind, repeat_task_id(repeat), server, details)
        self.alerts_of(server).emit(event)
