"""Sees what the triggers wait for, fires them and starts their programs.

Where each kind's news comes from, on the servers this process holds:

- `started`: the crash guard's check after a start, once it released the pack's held tasks
  (bot.background.crash_guard `on_started`): the program's steps run on a server whose queue
  is whole again. A stop of the bot between that release and the firing's record loses that
  one firing (the guard does not look at a start twice);
- `join` and `log`: each line of the server's log, from the log source (its own disk or SFTP:
  bot.events.log_tail `on_line`), awaited before the reader moves past the line, so its place is
  never saved past a line whose firing is not recorded; a line read again after a restart is the
  same occurrence (its file and offset) and fires nothing more. Lines of rolled archives read
  after a long stop are old news and fire nothing. A server whose events come over RCON only has
  no log: its joins are seen by `list` (names that were not online at the last look);
- `players`: the count of `list`, looked at every `presence_interval` seconds; the first look
  after a start only learns the count (a crossing is a change seen);
- `interest`: the interested count of the Discord event as the bot keeps it (the Discord
  adapter follows Discord's count: bot.discord.guildevents.interest), looked at every
  `interval`, in a process with Discord (`events` gives its port). Its firing is once per start
  of the event (a postponed event is a new start); the deadline's decision (postpone or cancel)
  is recorded once before it is acted on, so a stop between the two leaves that one undone.

A firing is recorded first (bot.store.triggers: once per occurrence, cool-down, day's limit),
then its program started as a run linked to it (once: `program_runs.fire_id`); a firing whose
run was not made (a stop between the two) is started by the next look. Each firing is alerted on
the server's event stream (`trigger_fired`), as are a day's limit reached (`trigger_limited`,
once a window) and a program that could not start (`trigger_refused`).
"""

from __future__ import annotations

__all__ = ["TriggerWatcher"]

import asyncio
import itertools
import logging
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from types import MappingProxyType
from typing import TYPE_CHECKING, Protocol

from bot.aio import cancel_and_wait
from bot.errors import BotError
from bot.events.bot_alerts import BotAlerts
from bot.events.event import Event
from bot.i18n import Lazy, Text, lazy
from bot.i18n.formats import stamp
from bot.minecraft.handover import listed_players
from bot.programs.looks import look_every
from bot.programs.model import steps_of_json
from bot.store.guild_events import LIVE_STATES, EventRow, GuildEventStore
from bot.store.schedules import Creator
from bot.store.triggers import Fire, Trigger, TriggerStore
from bot.triggers.model import MAX_POSTPONES, LinePattern, compile_pattern, joined_player

if TYPE_CHECKING:
    from bot.programs.runner import ProgramRunner
    from bot.services import ServerServices
    from bot.times.clock import Clock

log = logging.getLogger(__name__)

INTERVAL = 1.0  # seconds between looks for firings whose run is not made
PRESENCE_INTERVAL = 10.0  # seconds between looks at who is online
# seconds between asks of Discord for the interested counts (one request a guild; discord.py
# drops the gateway's interest events of members it has not cached, so its count is asked)
INTEREST_INTERVAL = 60.0
_LOG_KINDS = ("log", "sftp")  # event sources that read the server's log


class EventPort(Protocol):
    """The Discord events as the triggers use them (bot.discord.guildevents.GuildEvents)."""

    @property
    def store(self) -> GuildEventStore: ...

    async def edit(
        self,
        row: EventRow,
        *,
        name: str | None,
        description: str | None,
        start: str | None,
        end: str | None,
    ) -> tuple[EventRow, list[Lazy]]: ...

    async def cancel(self, row: EventRow, *, by_name: str) -> EventRow: ...

    async def refresh_guild_counts(self, guild_id: int) -> str | None: ...


def _no_events() -> EventPort | None:
    return None


class TriggerWatcher:
    """One per process (bot.core.Core.start); see the module's text."""

    def __init__(
        self,
        store: TriggerStore,
        runner: ProgramRunner,
        servers: Mapping[str, ServerServices],
        clock: Clock,
        *,
        interval: float = INTERVAL,
        presence_interval: float = PRESENCE_INTERVAL,
        owns: Callable[[str], bool] | None = None,
        events: Callable[[], EventPort | None] = _no_events,
        interest_interval: float = INTEREST_INTERVAL,
    ) -> None:
        self.store = store
        self.runner = runner
        self.servers = servers
        self.clock = clock
        self.interval = interval
        self.presence_interval = presence_interval
        self.owns = owns or (lambda server: runner.scheduler.owns(server))
        self.events = events
        self.interest_interval = interest_interval
        self._asked: dict[int, float] = {}  # guild -> when its counts were last asked (monotonic)
        self._alerts: dict[str, BotAlerts] = {}
        self._seq = itertools.count(1)
        self._triggers: list[Trigger] = []
        self._patterns: dict[str, LinePattern] = {}
        self._counts: dict[str, int] = {}  # each server's player count at the last look
        self._online: dict[str, set[str]] = {}  # names online at the last look (RCON-only)
        self._tasks: list[asyncio.Task[None]] = []
        self._wake = asyncio.Event()
        self.fired = 0  # firings this process made (the tests read it)

    # -- life -----------------------------------------------------------------------------------

    def alerts_of(self, server: str) -> BotAlerts:
        if server not in self._alerts:
            self._alerts[server] = BotAlerts()
        return self._alerts[server]

    async def start(self) -> None:
        if not self._tasks:
            await self.refresh()
            self._tasks = [
                asyncio.create_task(self._loop(), name="trigger-fires"),
                asyncio.create_task(self._presence_loop(), name="trigger-presence"),
            ]

    async def stop(self) -> None:
        tasks, self._tasks = self._tasks, []
        await cancel_and_wait(*tasks)

    def changed(self) -> None:
        """A trigger was added, paused or removed here: read them again now."""
        self._wake.set()

    async def refresh(self) -> None:
        self._triggers = await self.store.all()

    def _of(self, server: str, *kinds: str) -> list[Trigger]:
        return [
            t
            for t in self._triggers
            if t.enabled and t.spec.server == server and t.spec.kind in kinds
        ]

    async def _loop(self) -> None:
        await look_every(self.look, self._wake, self.interval, "the triggers")

    async def look(self) -> None:
        """The triggers as stored now, the firings to start, the Discord events' counts."""
        await self.refresh()
        await self.start_pending()
        await self.look_at_interest()

    async def _presence_loop(self) -> None:
        while True:
            for server in list(self.servers):
                try:
                    await self.look_at_players(server)
                except BotError as exc:  # unreachable for now: the next look sees the count
                    log.info("%s: who is online is unknown: %s", server, exc)
                except Exception:
                    log.warning("%s: looking at the players failed", server, exc_info=True)
            await asyncio.sleep(self.presence_interval)

    # -- the news -------------------------------------------------------------------------------

    async def on_started(self, server: str) -> None:
        """The crash guard compared after the server started, and released its tasks."""
        now = self.clock.now()
        for trigger in self._of(server, "started"):
            await self._fire(
                trigger, f"started:{int(now.timestamp())}", None, lazy("the server started")
            )

    async def on_line(self, server: str, message: str, place: str, backlog: bool) -> None:
        """One line of the server's log (its message part), at `place` (its file and offset)."""
        if backlog:
            return
        joins = self._of(server, "join")
        if joins:
            player = joined_player(message)
            if player is not None:
                for trigger in joins:
                    if trigger.spec.player is None or trigger.spec.player.lower() == player.lower():
                        await self._fire(
                            trigger,
                            f"line:{place}",
                            player,
                            lazy("{player} joined", player=player),
                        )
        for trigger in self._of(server, "log"):
            matched, player = self._pattern(trigger).match(message)
            if matched:
                await self._fire(
                    trigger,
                    f"line:{place}",
                    player,
                    lazy("a log line matched `{pattern}`", pattern=trigger.spec.pattern),
                )

    def _pattern(self, trigger: Trigger) -> LinePattern:
        text = trigger.spec.pattern or ""
        found = self._patterns.get(text)
        if found is None:
            found = self._patterns[text] = compile_pattern(text)
        return found

    async def look_at_players(self, server: str) -> None:
        """Who is online now, against the last look: the `players` crossings, and on a server
        with no log source the `join`s."""
        services = self.servers.get(server)
        if services is None or not self.owns(server):
            self._counts.pop(server, None)
            self._online.pop(server, None)
            return
        counting = self._of(server, "players")
        joining = self._of(server, "join") if services.event_kind not in _LOG_KINDS else []
        if not counting and not joining:
            self._counts.pop(server, None)
            self._online.pop(server, None)
            return
        names = await listed_players(services.pack)
        now = self.clock.now()
        count = len(names)
        before = self._counts.get(server)
        self._counts[server] = count
        if before is not None:
            for trigger in counting:
                threshold = trigger.spec.players or 0
                up = before < threshold <= count
                down = count < threshold <= before
                if (up and trigger.spec.direction == "up") or (
                    down and trigger.spec.direction == "down"
                ):
                    said = (
                        lazy("the players online rose to {n}", n=count)
                        if up
                        else lazy("the players online fell to {n}", n=count)
                    )
                    await self._fire(trigger, f"players:{int(now.timestamp())}", None, said)
        seen = self._online.get(server)
        online = {n.lower(): n for n in names}
        self._online[server] = set(online)
        if seen is None:
            return
        for key, name in online.items():
            if key in seen:
                continue
            for trigger in joining:
                if trigger.spec.player is None or trigger.spec.player.lower() == key:
                    await self._fire(
                        trigger,
                        f"join:{key}:{int(now.timestamp())}",
                        name,
                        lazy("{player} joined", player=name),
                    )

    async def look_at_interest(self) -> None:
        """Each `interest` trigger's event: fire once it has enough interested members; at its
        deadline short of them, postpone or cancel it (once)."""
        port = self.events()
        watching = [t for t in self._triggers if t.enabled and t.spec.kind == "interest"]
        if port is None or not watching:
            return
        now = self.clock.now()
        for trigger in watching:
            spec = trigger.spec
            row = await port.store.get(spec.event or 0)
            if row is None:
                continue
            if row.state == "cancelled" or row.state in LIVE_STATES:
                await self._withdraw(trigger, row)
            if row.state not in LIVE_STATES:
                continue
            if time.monotonic() - self._asked.get(row.guild_id, -1e9) >= self.interest_interval:
                self._asked[row.guild_id] = time.monotonic()
                note = await port.refresh_guild_counts(row.guild_id)
                if note is not None:
                    log.info("trigger %s: %s", trigger.name, note)
                row = await port.store.get(row.id) or row
            at = int(row.start.timestamp())
            key = f"interest:{row.id}:{at}"
            if row.interested >= (spec.interested or 0):
                said = lazy(
                    "{n} members are interested in {event}", n=row.interested, event=row.name
                )
                await self._fire(trigger, key, None, said)
                continue
            if now < row.start - timedelta(seconds=spec.deadline or 0):
                continue
            if await self.store.decided(trigger.id, key):
                continue  # it fired for this start; fewer members since change nothing
            short = await self.store.decided(trigger.id, f"short:{row.id}:")
            postpone = spec.if_not == "postpone" and short < MAX_POSTPONES
            verb = "postponed" if postpone else "cancelled"
            if not await self.store.decide_once(trigger, f"short:{row.id}:{at}", now, verb):
                continue
            await self._short(port, trigger, row, postpone)

    async def _withdraw(self, trigger: Trigger, row: EventRow) -> None:
        """Cancel the runs started for another start of this event (it was moved), or for it at
        all once it is cancelled: the program follows the event."""
        current = f"interest:{row.id}:{int(row.start.timestamp())}"
        for fire in await self.store.started_with(trigger.id, f"interest:{row.id}:"):
            if fire.occurrence == current and row.state != "cancelled":
                continue
            run = await self.runner.store.run_of_fire(fire.id)
            if run is None or run.state not in ("running", "paused"):
                continue
            if await self.runner.cancel(run) is not None:
                self._alert(
                    trigger,
                    "trigger_withdrawn",
                    trigger=trigger.name,
                    event=row.name,
                    run=f"#{run.id}",
                )

    async def _short(
        self, port: EventPort, trigger: Trigger, row: EventRow, postpone: bool
    ) -> None:
        spec = trigger.spec
        count = lazy("{n} of {needed}", n=row.interested, needed=spec.interested or 0)
        try:
            if postpone:
                step = timedelta(seconds=spec.postpone or 0)
                moved, _notes = await port.edit(
                    row,
                    name=None,
                    description=None,
                    start=f"<t:{int((row.start + step).timestamp())}>",
                    end=f"<t:{int((row.end + step).timestamp())}>",
                )
                self._alert(
                    trigger,
                    "trigger_postponed",
                    trigger=spec.name,
                    event=row.name,
                    interested=count,
                    start=stamp(moved.start),
                )
            else:
                await port.cancel(row, by_name=f"trigger {spec.name}")
                self._alert(
                    trigger,
                    "trigger_cancelled",
                    trigger=spec.name,
                    event=row.name,
                    interested=count,
                )
        except BotError as exc:
            self._alert(trigger, "trigger_refused", trigger=spec.name, event=row.name, why=exc.text)

    # -- firing ---------------------------------------------------------------------------------

    async def _fire(
        self, trigger: Trigger, occurrence: str, player: str | None, because: Lazy
    ) -> None:
        now = self.clock.now()
        # an event's each start is news, however soon after the last (a moved event)
        cooled = trigger.spec.kind != "interest"
        outcome = await self.store.fire(trigger, occurrence, now, player, cooled=cooled)
        if outcome.result == "limited" and outcome.say:
            self._alert(
                trigger,
                "trigger_limited",
                trigger=trigger.name,
                per_day=str(trigger.spec.per_day),
                because=because,
            )
        if outcome.result != "fired" or outcome.fire is None:
            log.info("trigger %s: %s not fired (%s)", trigger.name, occurrence, outcome.result)
            return
        self.fired += 1
        await self._start(outcome.fire, trigger, because)

    async def start_pending(self) -> None:
        """Start the program of each firing whose run is not made (a stop came between)."""
        for fire, trigger in await self.store.pending():
            if self.owns(trigger.spec.server):
                await self._start(fire, trigger, lazy("a firing not started before a stop"))

    async def _start(self, fire: Fire, trigger: Trigger, because: Lazy) -> None:
        spec = trigger.spec
        program = await self.runner.store.latest(spec.program)
        reason: Text | None = None
        run = None
        if program is None:
            reason = lazy("there is no program `{name}`", name=spec.program)
        else:
            earliest = min((s.offset for s in steps_of_json(program.steps)), default=0)
            start = fire.at + timedelta(seconds=max(0, -earliest))
            if fire.occurrence.startswith("interest:"):  # at the event's start, in its key
                start = datetime.fromtimestamp(int(fire.occurrence.rsplit(":", 1)[1]), UTC)
            try:
                run = await self.runner.start_program(
                    program,
                    spec.server,
                    start,
                    # its maker's, named as the trigger's: the steps' rows say who set it up
                    Creator(
                        trigger.created_by.id, f"{trigger.created_by.name} (trigger {spec.name})"
                    ),
                    fire_id=fire.id,
                    player=fire.player,
                )
            except BotError as exc:
                reason = exc.text
        if run is None:
            await self.store.settle(fire.id, "refused", str(reason))
            self._alert(
                trigger,
                "trigger_refused",
                trigger=spec.name,
                program=spec.program,
                why=reason or "",
            )
            return
        await self.store.settle(fire.id, "started")
        details: dict[str, Text] = {
            "trigger": spec.name,
            "program": spec.program,
            "run": f"#{run.id}",
            "because": because,
        }
        if fire.player is not None:
            details["player"] = fire.player
        self._alert(trigger, "trigger_fired", **details)

    def _alert(self, of: Trigger, kind: str, **details: Text) -> None:
        server = of.spec.server
        event = Event(server, next(self._seq), kind, of.name, -1, MappingProxyType(details))
        log.warning("%s %s on %s", kind, of.name, server)
        self.alerts_of(server).emit(event)
