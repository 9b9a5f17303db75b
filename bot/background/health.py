"""Health alerts: what is wrong with a server that no pack event says, checked every
`DOOM_HEALTH_INTERVAL` seconds on an injected clock and joined to the server's event stream like
the scheduler's alerts (bot.events.bot_alerts), so the alerts cog posts them.

- `health_tps`: TPS below `alert_tps_below` for `alert_tps_minutes` (measured between two checks
  from the game time; a game that stood still is an empty server paused, not counted);
- `health_unreachable`: RCON not answering for `alert_unreachable_minutes`;
- `health_pack`: the pack missing or damaged (bot.minecraft.pack_health), looked at after every
  reconnect and server start and every `alert_pack_check_minutes`; alerted at once;
- `health_stuck`: a wall-clock run handed over but still in the pack's queue (retrying, held)
  `alert_stuck_minutes` after its hand-over, one alert per run (not while it waits for its
  conditions: `require` with `if_not:wait` asked for that);
- `health_silent`: the pack made events that did not reach the bot for `alert_silent_minutes`
  while the server answers (latest.log unreadable, the pack's `cfg.log` off, a poller stuck).

One problem is one alert: a fault fires once it lasted its minutes; it ends, with its
`<kind>_clear` alert, only after it has been gone `alert_quiet_minutes`, so a fault that flaps
in between is still the same problem.
"""

from __future__ import annotations

__all__ = ["ALERT_TYPES", "HealthMonitor", "Limits"]

import asyncio
import itertools
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from types import MappingProxyType
from typing import TYPE_CHECKING

from bot.aio import cancel_and_wait
from bot.errors import BotError, PackError
from bot.events.bot_alerts import BotAlerts
from bot.events.event import Event
from bot.i18n import N_, Joined, Text
from bot.minecraft import handover
from bot.times.clock import Clock, SystemClock

if TYPE_CHECKING:
    from bot.config import Settings
    from bot.services import ServerServices
    from bot.store.schedules import ScheduleStore

log = logging.getLogger(__name__)

KINDS = ("health_tps", "health_unreachable", "health_pack", "health_stuck", "health_silent")
ALERT_TYPES = KINDS + tuple(f"{k}_clear" for k in KINDS)
STUCK_LOOKBACK = timedelta(days=1)  # older hand-overs are not looked at again


@dataclass(frozen=True, slots=True)
class Limits:
    """The thresholds, in the settings' units (minutes, TPS, seconds)."""

    interval: float = 30.0
    tps_below: float = 15.0
    tps_minutes: float = 5.0
    unreachable_minutes: float = 2.0
    pack_check_minutes: float = 10.0
    stuck_minutes: float = 10.0
    silent_minutes: float = 10.0
    quiet_minutes: float = 5.0

    @classmethod
    def of(cls, settings: Settings) -> Limits:
        return cls(
            settings.health_interval,
            settings.alert_tps_below,
            settings.alert_tps_minutes,
            settings.alert_unreachable_minutes,
            settings.alert_pack_check_minutes,
            settings.alert_stuck_minutes,
            settings.alert_silent_minutes,
            settings.alert_quiet_minutes,
        )


@dataclass
class _Problem:
    since: datetime  # the fault was first seen
    fired: bool = False
    gone_since: datetime | None = None  # the fault was last seen to end


@dataclass
class _Tracker:
    """One kind of fault, by key (the server, or a run): fire after `after`, clear after
    `quiet` without it."""

    kind: str
    after: timedelta
    quiet: timedelta
    problems: dict[str, _Problem] = field(default_factory=dict)

    def forget_unfired(self, key: str) -> None:
        """A fault seen but not alerted yet starts over (it did not last)."""
        found = self.problems.get(key)
        if found is not None and not found.fired:
            del self.problems[key]

    def update(
        self, key: str, bad: bool, now: datetime, since: datetime | None = None
    ) -> str | None:
        """The alert type to send now (the kind, its clear), or None. `since`: when the fault
        (or its absence) began, if before now (a rate measured over the last interval)."""
        found = self.problems.get(key)
        if bad:
            if found is None:
                found = self.problems[key] = _Problem(since or now)
            found.gone_since = None
            if not found.fired and now - found.since >= self.after:
                found.fired = True
                return self.kind
            return None
        if found is None:
            return None
        if not found.fired:
            del self.problems[key]  # it ended before it was a problem
            return None
        found.gone_since = found.gone_since or since or now
        if now - found.gone_since >= self.quiet:
            del self.problems[key]
            return f"{self.kind}_clear"
        return None


class HealthMonitor:
    """The health checks of one server, and their alerts (`alerts`)."""

    def __init__(
        self,
        server: ServerServices,
        limits: Limits,
        *,
        clock: Clock | None = None,
        runs: ScheduleStore | None = None,
    ) -> None:
        self.server = server
        self.limits = limits
        self.clock: Clock = clock or SystemClock()
        self.runs = runs
        self.alerts = BotAlerts()
        quiet = timedelta(minutes=limits.quiet_minutes)
        minutes = {
            "health_tps": limits.tps_minutes,
            "health_unreachable": limits.unreachable_minutes,
            "health_pack": 0.0,
            "health_stuck": limits.stuck_minutes,
            "health_silent": limits.silent_minutes,
        }
        self.trackers = {k: _Tracker(k, timedelta(minutes=m), quiet) for k, m in minutes.items()}
        self._seq = itertools.count(1)
        self._sample: tuple[datetime, int] | None = None  # (clock, game time) of the last check
        self._pack_due = True  # look at the pack at the next check
        self._pack_checked: datetime | None = None
        self._seq_baseline: int | None = None  # the pack's event counter at the first look
        self._task: asyncio.Task[None] | None = None
        self.checks = 0
        server.rcon.on_reconnect.append(self.look_at_pack)
        started = getattr(getattr(server.events, "inner", server.events), "on_server_started", None)
        if isinstance(started, list):
            started.append(self.look_at_pack)

    def look_at_pack(self) -> None:
        """The server may have restarted (a reconnect, its start-up line): check the pack."""
        self._pack_due = True
        self._sample = None  # its game time may have gone back with the save

    # -- life -----------------------------------------------------------------------------------

    def start(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._loop(), name=f"health-{self.server.name}")

    async def stop(self) -> None:
        task, self._task = self._task, None
        await cancel_and_wait(task)

    async def _loop(self) -> None:
        while True:
            # the first look one interval after start: the bot's own start-up (its setup, the
            # crash guard's restore) goes first
            await self.clock.sleep(self.limits.interval)
            try:
                await self.check()
            except BotError as exc:  # the database or the server away: said in words
                log.warning("health check of %s failed: %s", self.server.name, exc)
            except Exception:  # a check that breaks must not end the others
                log.exception("health check of %s failed", self.server.name)

    # -- the checks -----------------------------------------------------------------------------

    async def check(self) -> None:
        """Every check once, now."""
        self.checks += 1
        now = self.clock.now()
        name = self.server.name
        try:
            game = await self.server.pack.game_time()
        except BotError as e:
            self._said("health_unreachable", name, True, now, None, {"error": e.text})
            return  # the other checks need the server
        self._said("health_unreachable", name, False, now)
        self._tps(now, game)
        await self._pack(now)
        await self._stuck(now)
        await self._silent(now)

    def _tps(self, now: datetime, game: int) -> None:
        before, self._sample = self._sample, (now, game)
        if before is None:
            return
        seconds = (now - before[0]).total_seconds()
        ticks = game - before[1]
        if seconds < 1:
            return
        if ticks <= 0:  # went back, or stood still (paused while empty): no slowness to count
            self.trackers["health_tps"].forget_unfired(self.server.name)
            return
        tps = ticks / seconds
        # measured over the interval since the last sample: slow since then
        shown: dict[str, Text] = {"tps": f"{tps:.1f}", "below": f"{self.limits.tps_below:g}"}
        self._said(
            "health_tps", self.server.name, tps < self.limits.tps_below, now, before[0], shown
        )

    async def _pack(self, now: datetime) -> None:
        every = timedelta(minutes=self.limits.pack_check_minutes)
        damaged = bool(self.trackers["health_pack"].problems)  # looked at each time until whole
        due = self._pack_due or self._pack_checked is None or now - self._pack_checked >= every
        if not (due or damaged):
            return
        try:
            await self.server.pack.get_time()  # one of its functions: is the pack there at all
            damage = await self.server.pack.damage()
        except PackError as e:
            if e.code != "not_installed":
                raise
            damage = [e.text]
        self._pack_due, self._pack_checked = False, now
        # said in the alert channel's language when it is posted
        shown: dict[str, Text] = {"damage": Joined(damage[:3], "; ")} if damage else {}
        self._said("health_pack", self.server.name, bool(damage), now, None, shown)

    async def _stuck(self, now: datetime) -> None:
        if self.runs is None:
            return
        tracker = self.trackers["health_stuck"]
        after = timedelta(minutes=self.limits.stuck_minutes)
        waiting = await self.runs.handed_not_ran(
            self.server.name, now - after, now - STUCK_LOOKBACK
        )
        stuck: dict[str, tuple[str, datetime]] = {}
        for run, task_id, serial in waiting:
            if run.handed_over is None:
                continue
            if await handover.where(self.server.pack, serial) not in ("queue", "paused"):
                continue
            if await handover.waits_for_conditions(self.server.pack, serial):
                continue  # waiting for its conditions, as asked (`max_wait`): not stuck
            stuck[f"run{run.id}"] = (task_id, run.handed_over)
        for key in set(tracker.problems) | set(stuck):
            task_id, since = stuck.get(key, ("", now))
            said = tracker.update(key, key in stuck, now, since)
            if said is not None:
                self._emit(said, task_id or key, run=key.removeprefix("run"))

    async def _silent(self, now: datetime) -> None:
        delivered = getattr(self.server.events, "last_seq", None)
        if not isinstance(delivered, int):
            return  # no event source, or one that does not count what it delivered
        made = await self.server.pack.event_seq()
        if made is None:
            return  # the pack's counter is missing: health_pack says so
        if self._seq_baseline is None or made < self._seq_baseline:
            self._seq_baseline = made  # events before the first look (or an older save)
        behind = made - max(self._seq_baseline, delivered)
        missing: dict[str, Text] = {"missing": str(max(behind, 0))}
        self._said("health_silent", self.server.name, behind > 0, now, None, missing)

    # -- alerts ---------------------------------------------------------------------------------

    # the alerts cog shows a detail's name translated: marked here for it
    _DETAIL_NAMES = (N_("error"), N_("tps"), N_("below"), N_("damage"), N_("run"), N_("missing"))

    def _said(
        self,
        kind: str,
        key: str,
        bad: bool,
        now: datetime,
        since: datetime | None = None,
        details: Mapping[str, Text] | None = None,
    ) -> None:
        said = self.trackers[kind].update(key, bad, now, since)
        if said is not None:
            self._emit(said, "", **(details or {}))

    def _emit(self, kind: str, task_id: str, **details: Text) -> None:
        event = Event(
            self.server.name, next(self._seq), kind, task_id, -1, MappingProxyType(dict(details))
        )
        log.warning("%s on %s: %s", kind, self.server.name, details)
        self.alerts.emit(event)
