"""`/metrics` (Prometheus text format) and `/healthz`, both without login.

Nothing here names a task, its command or a user: labels are server names, list names, event
types and refusal kinds only. Each app has its own registry (tests build several apps).
"""

from __future__ import annotations

__all__ = ["Metrics", "blueprint"]

import logging
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector
from quart import Blueprint, Response

from bot import errors
from bot.minecraft.pack_tasks import TASK_LISTS
from bot.plugins import STATES
from web.context import state

if TYPE_CHECKING:
    from prometheus_client.metrics_core import Metric

    from bot.operations import Operations
    from bot.services import Services
    from bot.wallclock.scheduler import Scheduler

log = logging.getLogger(__name__)

blueprint = Blueprint("metrics", __name__)
RCON_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
MAX_PLANNED = 100  # planned rows per server looked at per scrape for new runs
LATENESS_BUCKETS = (0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 300.0)


class _Counts(Collector):
    """Counters kept elsewhere (the event bus, the command checkers), read at scrape time."""

    def __init__(self, services: Services) -> None:
        self.services = services

    def collect(self) -> Iterator[Metric]:
        events = CounterMetricFamily(
            "doom_events", "Pack events received, by server and type.", labels=["server", "type"]
        )
        for (server, kind), n in sorted(self.services.bus.counts.items()):
            events.add_metric([server, kind], n)
        yield events
        refused = CounterMetricFamily(
            "doom_command_check_refusals",
            "Commands the command check refused before scheduling (parse errors, deny-list).",
            labels=["server", "kind"],
        )
        for name, found in sorted(self.services.servers.items()):
            for kind in ("parse", "refused"):
                refused.add_metric([name, kind], found.checker.refusals.get(kind, 0))
        yield refused


class _Plugins(Collector):
    """Each installed plugin's state, 1 for the state it is in (loaded, failed, incompatible,
    disabled): an alert rule can watch for a plugin that stopped loading."""

    def __init__(self, ops: Operations) -> None:
        self.ops = ops

    def collect(self) -> Iterator[Metric]:
        states = GaugeMetricFamily(
            "doom_plugin_state", "Installed plugins by state.", labels=["plugin", "state"]
        )
        for plugin in self.ops.plugins:
            for kind in STATES:
                states.add_metric([plugin.name, kind], 1.0 if plugin.state == kind else 0.0)
        yield states


class _Fleet(Collector):
    """Several processes on one database (bot.background.fleet): the leases this one holds
    (1) or not (0), the servers' and those it wants beside them (the Discord gateway's), and how
    many processes were running at its last look."""

    def __init__(self, services: Services) -> None:
        self.services = services

    def collect(self) -> Iterator[Metric]:
        fleet = self.services.fleet
        if fleet is None:
            return
        held = GaugeMetricFamily(
            "doom_lease_held",
            "1 for each server whose work this process does, and for the Discord gateway "
            "while this process is connected to it.",
            labels=["lease"],
        )
        for name in sorted(self.services.servers):
            held.add_metric([f"server:{name}"], 1.0 if fleet.holds(name) else 0.0)
        for lease in sorted(fleet.wanted):
            held.add_metric([lease], 1.0 if lease in fleet.held else 0.0)
        yield held
        yield GaugeMetricFamily(
            "doom_fleet_processes",
            "Bot processes sharing the database at the last look at the leases.",
            value=float(fleet.members),
        )


class Metrics:
    def __init__(self, services: Services, ops: Operations | None = None) -> None:
        self.services = services
        self.registry = CollectorRegistry()
        self.rcon = Histogram(
            "doom_rcon_round_trip_seconds",
            "RCON command round trips.",
            ["server"],
            buckets=RCON_BUCKETS,
            registry=self.registry,
        )
        self.queue = Gauge(
            "doom_tasks",
            "Tasks waiting, by server and list.",
            ["server", "list"],
            registry=self.registry,
        )
        self.up = Gauge(
            "doom_server_up",
            "1 when the server answered the last scrape over RCON.",
            ["server"],
            registry=self.registry,
        )
        self.lateness: Histogram | None = None
        self._last_run: dict[int, int] = {}  # schedule id -> the last run observed
        if services.scheduler is not None:
            self.lateness = Histogram(
                "doom_wallclock_lateness_seconds",
                "How late wall-clock schedules fired.",
                buckets=LATENESS_BUCKETS,
                registry=self.registry,
            )
        self.runs = Histogram(
            "doom_run_lateness_seconds",
            "How late runs ran after their due time: wall-clock runs (kind planned, run now "
            "included) and the game-time runs the bot knows of (kind game).",
            ["server", "kind"],
            buckets=LATENESS_BUCKETS,
            registry=self.registry,
        )
        # runs from start() on (a restart must not count the stored history again)
        self._started = False
        self._wall_mark = 0  # runs up to this id observed
        self._wall_seen: set[int] = set()  # and these above it (one before them is unfinished)
        self._game_mark = 0
        self.registry.register(_Counts(services))
        self.registry.register(_Fleet(services))
        if ops is not None:
            self.registry.register(_Plugins(ops))
        for name, server in services.servers.items():
            observe = self.rcon.labels(server=name).observe
            server.rcon.round_trip_observers.append(observe)

    async def start(self) -> None:
        """Count runs from now on: the dashboard calls this as it starts (a scrape before
        that starts it)."""
        if self._started:
            return
        history = self.services.history
        self._wall_mark = await history.schedules.last_run_id()
        self._game_mark = await history.tasks.last_id()
        self._started = True

    async def refresh(self) -> None:
        await self.start()
        for name, server in self.services.servers.items():
            try:
                for which in TASK_LISTS:
                    total = (await server.pack.list_tasks(which, limit=1))[1]
                    self.queue.labels(server=name, list=which).set(total)
                self.up.labels(server=name).set(1)
            except errors.BotError:
                self.up.labels(server=name).set(0)
        scheduler = self.services.scheduler
        if scheduler is not None and self.lateness is not None:
            for name in self.services.servers:
                await self._planned(scheduler, name)
        await self._runs()

    async def _runs(self) -> None:
        """Every run finished since the last scrape into doom_run_lateness_seconds, once."""
        history = self.services.history
        finished, sending = await history.schedules.finished_after(self._wall_mark)
        for run_id, server, lateness in finished:
            if run_id in self._wall_seen:
                continue
            self._wall_seen.add(run_id)
            if lateness is not None:
                self.runs.labels(server=server, kind="planned").observe(max(0.0, lateness))
        if self._wall_seen:
            top = max(self._wall_seen)
            self._wall_mark = top if sending is None or sending > top else sending - 1
            self._wall_seen = {i for i in self._wall_seen if i > self._wall_mark}
        for run in await history.tasks.after(self._game_mark):
            self._game_mark = run.id
            if run.lateness is not None:
                self.runs.labels(server=run.server, kind="game").observe(max(0.0, run.lateness))

    async def _planned(self, scheduler: Scheduler, server: str) -> None:
        """The planned list's size, and the lateness of every run since the last scrape of
        the rows seen in the list (a row that is created and done between two scrapes is not
        counted)."""
        assert self.lateness is not None
        rows, total = await scheduler.planned(server, limit=MAX_PLANNED)
        self.queue.labels(server=server, list="planned").set(total)
        for row in rows:
            self._last_run.setdefault(row.id, 0)
        for schedule_id, last in list(self._last_run.items()):
            runs = await scheduler.runs(schedule_id, limit=50)  # newest first
            for run in reversed(runs):
                if run.id > last and run.lateness is not None:
                    self.lateness.observe(max(0.0, run.lateness))
            if runs:
                self._last_run[schedule_id] = max(last, runs[0].id)
            now = await scheduler.get(schedule_id)
            if now is None or now.state not in ("active", "paused"):
                del self._last_run[schedule_id]  # done: nothing more will run

    def text(self) -> bytes:
        return generate_latest(self.registry)


@blueprint.get("/metrics")
async def metrics() -> Response:
    found = state().metrics
    await found.refresh()
    return Response(found.text(), content_type=CONTENT_TYPE_LATEST)


@blueprint.get("/healthz")
async def healthz() -> Any:
    servers = state().services.servers
    return {"status": "ok", "servers": {n: s.rcon.connected for n, s in servers.items()}}
