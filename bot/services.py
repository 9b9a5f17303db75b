"""The services the bot holds, built once from the settings by the launcher.

One :class:`ServerServices` per configured Minecraft server (RCON client, pack client, command
checker, event source, installer, and the SFTP session of a server whose files are on another
machine) and one :class:`~bot.store.audit.AuditStore` for all. Cogs reach
them through ``bot.services`` and never build them themselves, so tests and the console can hand
the bot services pointed at an mcsim.

With no server configured, :func:`build_services` asks its ``embedded`` hook for one;
:func:`start_embedded_mcsim` (mcsim via :mod:`bot.minecraft.embedded`) is the default. The
launcher starts the embedded server itself and passes its servers in the settings, so this
matters to callers such as ``console.front.main`` used directly.
"""

from __future__ import annotations

__all__ = [
    "Embedded",
    "EmbeddedStarter",
    "ServerServices",
    "Services",
    "build_checker",
    "build_rcon",
    "build_scheduler",
    "build_server",
    "build_services",
    "checker_note",
    "connect_sftp",
    "start_embedded_mcsim",
]

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Protocol

from bot.aio import cancel_and_wait
from bot.errors import BotError
from bot.i18n import _
from bot.minecraft.server_files import (
    NO_PROPERTIES,
    UNKNOWN_VERSION,
    MinecraftVersion,
    ServerProperties,
    find_server_properties,
    minecraft_version,
    read_server_properties,
)
from bot.minecraft.software import UNKNOWN_SOFTWARE, ServerSoftware, detect_software

if TYPE_CHECKING:
    from bot.background.crash_guard import CrashGuard
    from bot.background.event_relay import EventRelay
    from bot.background.event_source import EventSource
    from bot.background.fleet import Fleet
    from bot.background.health import HealthMonitor
    from bot.config import ServerConfig, Settings
    from bot.events.bus import EventBus
    from bot.minecraft.command_check import CommandChecker
    from bot.minecraft.installer import PackInstaller
    from bot.minecraft.pack_client import PackClient
    from bot.minecraft.rcon import RconClient
    from bot.minecraft.sftp import SftpSession
    from bot.minecraft.sftp_files import RemoteFacts
    from bot.store.audit import AuditStore
    from bot.store.db import Database
    from bot.store.event_log import EventLog
    from bot.store.history import RunHistory
    from bot.store.leases import Lease
    from bot.store.notify import Listener
    from bot.wallclock.scheduler import Scheduler

log = logging.getLogger(__name__)
PRUNE_INTERVAL = 3600.0  # seconds between looks for runs past the history's retention


class Embedded(Protocol):
    """An embedded stand-in server the bot started and must stop."""

    servers: list[ServerConfig]

    def stop(self) -> None: ...


EmbeddedStarter = Callable[["Settings"], Awaitable[Embedded]]


@dataclass
class ServerServices:
    """Everything the bot uses to drive one Minecraft server."""

    config: ServerConfig
    rcon: RconClient
    pack: PackClient
    checker: CommandChecker
    events: EventSource | None
    installer: PackInstaller | None = None  # None when the bot cannot see the world's files
    event_kind: str = "none"  # "log", "sftp" (the log over SFTP), "rcon" or "none"
    minecraft: MinecraftVersion = UNKNOWN_VERSION
    properties: ServerProperties = NO_PROPERTIES
    software: ServerSoftware = UNKNOWN_SOFTWARE  # filled by ensure_software()
    # the record of what the bot put into the pack, and the restore after a crash
    guard: CrashGuard | None = None
    sftp: SftpSession | None = None  # the server's files over SFTP (sftp_url)

    @property
    def name(self) -> str:
        return self.config.name

    def events_state(self) -> str:
        """Where the events come from, as /status says it; for the log over SFTP, whether it
        is being read or since when its connection has been down, and why."""
        if self.event_kind != "sftp" or self.sftp is None:
            return self.event_kind
        state = self.sftp.state
        url = str(self.sftp.target)
        if state.failing_since is not None:
            since = datetime.fromtimestamp(state.failing_since, UTC)
            return _(
                "log over SFTP ({url}): reconnecting since {since} UTC; last error: {error}",
                url=url,
                since=since.strftime("%Y-%m-%d %H:%M:%S"),
                error=state.last_error,
            )
        if state.connected:
            return _("log over SFTP ({url}): reading", url=url)
        return _("log over SFTP ({url}): not connected yet", url=url)

    async def ensure_software(self, *, again: bool = False) -> ServerSoftware:
        """What runs the server (bot/minecraft/software.py), detected once and shared with the
        installer, whose reload depends on it. `again` re-detects (after a restart)."""
        if again or self.software.family == "unknown":
            self.software = await detect_software(self.rcon, self.config.log_path)
            log.info("%s runs %s", self.name, self.software.describe())
        if self.installer is not None:
            self.installer.software = self.software
        return self.software

    @property
    def checker_note(self) -> str | None:
        """Why the commands are not checked against the server's own version, if they are not."""
        return checker_note(self.minecraft, self.checker)


@dataclass
class Services:
    settings: Settings
    servers: dict[str, ServerServices]
    audit: AuditStore
    embedded: Embedded | None = None
    # every face reads events through the bus (one reader per source); see bot/events/bus.py
    bus: EventBus = field(default_factory=lambda: _new_bus())
    _closed: bool = field(default=False, repr=False)
    scheduler: Scheduler | None = None  # wall-clock schedules; started by Services.start
    _history: RunHistory | None = field(default=None, repr=False)
    _pruning: asyncio.Task[None] | None = field(default=None, repr=False)
    _event_log: EventLog | None = field(default=None, repr=False)
    # each server's health checks (bot.background.health), made and started by start()
    health: dict[str, HealthMonitor] = field(default_factory=dict)
    # several processes on PostgreSQL: this one's leases (bot.background.fleet); None alone
    fleet: Fleet | None = None
    _listener: Listener | None = field(default=None, repr=False)
    # the other processes' events onto this one's bus (bot.background.event_relay); shared only
    relay: EventRelay | None = None

    @property
    def history(self) -> RunHistory:
        """Every run the bot knows of (bot.store.history), on the scheduler's clock; made on
        first use, so a test's scheduler set after build_services lends it its clock."""
        if self._history is None:
            from bot.store.history import RunHistory
            from bot.store.schedules import ScheduleStore
            from bot.store.task_runs import TaskRunStore

            clock = self.scheduler.clock if self.scheduler is not None else None
            self._history = RunHistory(
                ScheduleStore(self.db),
                TaskRunStore(self.db),
                days=self.settings.history_days,
                clock=clock,
                game_time=self._game_time,
            )
        return self._history

    async def _game_time(self, server: str) -> int:
        """A server's game time now: the run history times a run by it (RunHistory.ran_at)."""
        return await self.servers[server].pack.get_time()

    @property
    def event_log(self) -> EventLog:
        """Every server's recent events, kept across restarts (bot.store.event_log)."""
        if self._event_log is None:
            from bot.store.event_log import EventLog

            self._event_log = EventLog(self.db)
        return self._event_log

    @property
    def db(self) -> Database:
        """The bot's database; every store keeps its tables there (bot.store.db)."""
        return self.audit.db

    async def start(self) -> None:
        """Start the background work: the wall-clock scheduler and every server's crash guard,
        event source and health checks. On PostgreSQL, where several processes may share the
        servers, each server's work runs only while this process holds its lease
        (bot.background.fleet). The scheduler's alerts join each server's event stream here,
        before any face reads it (a test may have set another scheduler after build_services)."""
        from bot.events.guarded import GuardedEvents

        if self.bus.recorder is None and getattr(self.audit, "db", None) is not None:
            self.bus.recorder = self.event_log.add  # the events page reads them after a restart
        shared = self.shared
        if self.scheduler is not None:
            for name, server in self.servers.items():
                if isinstance(server.events, GuardedEvents):
                    server.events.add_alerts(self.scheduler.alerts_of(name))
            if shared:
                self.scheduler.owns = self.holds
            await self.scheduler.start()
        if self._pruning is None:
            self._pruning = asyncio.create_task(self._prune_history(), name="history-prune")
        if shared:
            await self._start_fleet()
        else:
            for name in self.servers:
                await self._start_server(name)
        self._warm_checkers()

    @property
    def shared(self) -> bool:
        """Whether other bot processes may share these servers (the database is PostgreSQL)."""
        db = getattr(self.audit, "db", None)
        return db is not None and not db.is_sqlite

    def holds(self, server: str) -> bool:
        """Whether this process does `server`'s background work now (always, alone)."""
        if self.fleet is None:
            return not self.shared
        return self.fleet.holds(server)

    async def _start_fleet(self) -> None:
        from bot.background.fleet import TICK, Fleet, process_id
        from bot.events.guarded import Gate, GuardedEvents
        from bot.store.leases import LeaseStore
        from bot.store.pack_lock import pack_lock

        for server in self.servers.values():
            if isinstance(server.events, GuardedEvents):
                server.events.gate = Gate()
            # any process may ask any server's pack (a face's request): one at a time
            wait = 2 * self.settings.rcon_timeout
            server.pack.share_exchanges(pack_lock(self.db, server.name, wait))
        ttl = self.settings.lease_ttl
        self.fleet = Fleet(
            LeaseStore(self.db, process_id(), ttl=ttl),
            list(self.servers),
            _ServerWork(self),
            # an RCON command started before this has ended before the lease can expire
            margin=min(self.settings.rcon_timeout + 1.0, ttl / 2),
            # a short TTL leaves little time between a renewal and the fence: look more often,
            # so a late look (a busy machine) does not stop work that was not in danger
            tick=min(TICK, ttl / 8),
        )
        if self.scheduler is not None:
            self.scheduler.fence_for = self.fleet.fence_for
        from bot.background.event_relay import EventRelay
        from bot.store.notify import EVENTS, LEASES, SCHEDULES, Listener

        self._listener = Listener(self.db)
        fleet, scheduler = self.fleet, self.scheduler
        self._listener.on(LEASES, lambda _: fleet.wake())
        if scheduler is not None:
            self._listener.on(SCHEDULES, scheduler.changed)
        # the relay tells its own rows apart by the ids the event log added (EventLog.written):
        # only when the bus records there
        if self.bus.recorder == self.event_log.add:
            self.relay = EventRelay(self.event_log, self.bus, list(self.servers))
            self._listener.on(EVENTS, self.relay.wake)
            await self.relay.start()
        self._listener.start()
        await self.fleet.start()

    async def _start_server(self, name: str) -> None:
        """A server's background work: its event source, crash guard, health checks, and the
        scheduler's hand-overs."""
        from bot.events.guarded import GuardedEvents

        server = self.servers[name]
        if isinstance(server.events, GuardedEvents) and server.events.gate is not None:
            server.events.gate.open()
        if server.guard is not None:
            if self.history.saw_event not in server.guard.on_own_event:
                server.guard.on_own_event.append(self.history.saw_event)
            server.guard.start()
        self._health_of(name).start()
        if self.scheduler is not None and self.fleet is not None:
            await self.scheduler.take(name)

    async def _stop_server(self, name: str) -> None:
        from bot.events.guarded import GuardedEvents

        server = self.servers[name]
        if self.scheduler is not None:
            await self.scheduler.drop(name)
        if isinstance(server.events, GuardedEvents) and server.events.gate is not None:
            server.events.gate.close()
        monitor = self.health.get(name)
        if monitor is not None:
            await monitor.stop()
        if server.guard is not None:
            await server.guard.stop()

    def _warm_checkers(self) -> None:
        """A running bot loads the command parser now (about 0.6 s of CPU, on the event loop),
        while nothing is due yet, not on the first check: that one would hold up the lease
        renewals, the hand-overs and every other reply just when a moderator is waiting
        (tests/fleet/test_fleet_cut.py failed without it); and a slash command's check comes
        before its reply, which Discord wants within 3 s."""
        from bot.minecraft.command_check import CommandChecker

        for server in self.servers.values():
            if isinstance(server.checker, CommandChecker):  # a test's stand-in has nothing to load
                server.checker.warm()

    def _health_of(self, name: str) -> HealthMonitor:
        """A server's health checks (made once), their alerts joined to its event stream."""
        from bot.background.health import HealthMonitor, Limits
        from bot.events.guarded import GuardedEvents

        monitor = self.health.get(name)
        if monitor is None:  # on the real clock: its faults are measured in real minutes
            server = self.servers[name]
            monitor = self.health[name] = HealthMonitor(
                server, Limits.of(self.settings), runs=self.history.schedules
            )
            if isinstance(server.events, GuardedEvents):
                server.events.add_alerts(monitor.alerts)
        return monitor

    async def _prune_history(self) -> None:
        while True:
            try:
                await self.history.prune_due()
            except BotError as exc:  # the database away: said in words, the next hour tries again
                log.warning("pruning the run history failed: %s", exc)
            except Exception:  # a locked or full disk: the next hour tries again
                log.exception("pruning the run history failed")
            await asyncio.sleep(PRUNE_INTERVAL)

    async def hand_over(self) -> None:
        """Stop this process's servers' background work and release their leases now, so the
        other processes take them at once: the first thing a stop does (the dashboard's
        connections may take seconds to close after it). Alone: nothing to hand over."""
        if self.fleet is not None:
            await self.fleet.stop()

    async def close(self) -> None:
        """Close every RCON connection and the audit store; stop an embedded server."""
        if self._closed:
            return
        self._closed = True
        if self.fleet is not None:  # the hand-over first: stop this one's work, release
            await self.fleet.stop()
        if self._listener is not None:
            await self._listener.stop()
        if self.relay is not None:
            await self.relay.stop()
        await cancel_and_wait(self._pruning)
        for monitor in self.health.values():
            await monitor.stop()
        if self.scheduler is not None:
            await self.scheduler.stop()
        for server in self.servers.values():
            if server.guard is not None:
                await server.guard.stop()
        await self.bus.close()
        for server in self.servers.values():
            try:
                await server.rcon.close()
            except Exception:
                log.warning("closing RCON of %s failed", server.name, exc_info=True)
            if server.sftp is not None:
                await server.sftp.close()
        close = getattr(self.audit, "close", None)
        if close is not None:
            result = close()
            if inspect.isawaitable(result):
                await result
        if self.embedded is not None:
            await asyncio.to_thread(self.embedded.stop)


@dataclass(eq=False)
class _ServerWork:
    """What a lease carries (bot.background.fleet): a server's background work."""

    services: Services

    async def gain(self, lease: Lease) -> None:
        if lease.server is not None and lease.server in self.services.servers:
            await self.services._start_server(lease.server)

    async def lose(self, lease: Lease) -> None:
        if lease.server is not None and lease.server in self.services.servers:
            await self.services._stop_server(lease.server)


def _new_bus() -> EventBus:
    from bot.events.bus import EventBus

    return EventBus()


def _event_source(
    server: ServerConfig,
    settings: Settings,
    pack: PackClient,
    store: AuditStore,
    properties: ServerProperties,
    sftp: SftpSession | None,
) -> tuple[EventSource, str]:
    from bot.background.event_source import build_event_source, event_kind

    source = build_event_source(
        server,
        pack,
        store,
        log_poll_interval=settings.log_poll_interval,
        rcon_poll_interval=settings.rcon_poll_interval,
        broadcast_rcon_to_ops=properties.broadcast_rcon_to_ops,
        sftp=sftp,
    )
    return source, event_kind(server, sftp)


def checker_note(version: MinecraftVersion, checker: CommandChecker) -> str | None:
    """The sentence `check`, /status and the log show when the checker could not use the
    server's own command tree; None when it could."""
    if version.version is None:
        return _(
            "The Minecraft version of the server is {version}: commands are checked against the "
            "newest command tree ({tree}). Set minecraft_version or make the log readable.",
            version=version.describe(),
            tree=checker.tree,
        )
    return checker.fallback_reason


def build_checker(
    settings: Settings, server: ServerConfig, remote: RemoteFacts | None = None
) -> tuple[CommandChecker, MinecraftVersion, ServerProperties]:
    """The server's command checker, built for the version it reports and the permission level
    its functions get, with what it was built from (the local files first, then `remote`: what
    was read over SFTP)."""
    from bot.minecraft.command_check import NEWEST_TREE, CommandChecker

    properties = read_server_properties(server)
    if properties.path is None and remote is not None:
        properties = remote.properties
    version = minecraft_version(server.log_path, None)
    if version.version is None:
        found = remote.version if remote is not None else None
        version = minecraft_version(None, server.minecraft_version)
        if found is not None:
            version = MinecraftVersion(found, "log")
    checker = CommandChecker(
        deny=server.denied_commands(settings.deny_commands),
        function_permission_level=properties.function_permission_level,
        function_namespaces=server.function_namespaces,
        allowed=settings.allowed_commands,
        version=version.version or NEWEST_TREE,
        ids_version=version.version,
    )
    if version.version is None:
        # the checker warns itself when it has no tree for a known version
        log.warning("%s: %s", server.name, checker_note(version, checker))
    else:
        log.info(
            "%s: Minecraft %s; commands checked against the %s tree at function permission "
            "level %d",
            server.name,
            version.describe(),
            checker.tree,
            properties.function_permission_level,
        )
    return checker, version, properties


def build_rcon(settings: Settings, server: ServerConfig) -> RconClient:
    """The RCON client of one configured server (it connects on first use)."""
    from bot.minecraft.rcon import RconClient

    return RconClient(
        server.rcon_host,
        server.rcon_port,
        server.rcon_password.get_secret_value(),
        timeout=settings.rcon_timeout,
        name=server.name,
    )


def build_server(
    settings: Settings,
    server: ServerConfig,
    store: AuditStore,
    *,
    sftp: SftpSession | None = None,
    remote: RemoteFacts | None = None,
) -> ServerServices:
    """The services of one server (nothing connects yet: RCON connects on first use). `sftp`:
    the session of a server with sftp_url, `remote` what was read through it (read_remote)."""
    from bot.minecraft.installer import PackInstaller
    from bot.minecraft.pack_client import PackClient

    rcon = build_rcon(settings, server)
    checker, version, properties = build_checker(settings, server, remote)
    pack = PackClient(rcon, server, checker)
    events, kind = _event_source(server, settings, pack, store, properties, sftp)
    # installing copies files into the world: only possible when the bot can reach it
    installer: PackInstaller | None = None
    if server.world_dir is not None:
        installer = PackInstaller(rcon, server)
    elif sftp is not None:
        from bot.minecraft.sftp_files import SftpWorld

        installer = PackInstaller(rcon, server, files=SftpWorld(sftp))
    guard = _crash_guard(rcon, pack, events, store, hold_ticks=round(settings.crash_hold * 20))
    # the log source reads the events the pack says: they must be said
    guard.say_events = server.events_in_chat if kind == "rcon" else True
    guarded = _guarded(events, guard)
    return ServerServices(
        server,
        rcon,
        pack,
        checker,
        guarded,
        installer,
        kind,
        version,
        properties,
        guard=guard,
        sftp=sftp,
    )


async def connect_sftp(server: ServerConfig) -> tuple[SftpSession | None, RemoteFacts | None]:
    """The SFTP session of a server with sftp_url, and server.properties and the version read
    through it when this machine has no copy of them. A host that cannot be reached now is
    logged and said in /status; the session connects again when next used."""
    if server.sftp_url is None:
        return None, None
    from bot.minecraft.sftp import SftpSession
    from bot.minecraft.sftp_files import read_facts

    session = SftpSession(server)
    if (
        find_server_properties(server) is not None
        and minecraft_version(server.log_path, None).version
    ):
        return session, None  # this machine has the files: nothing to read over SFTP
    try:
        return session, await read_facts(session)
    except BotError as exc:
        log.warning("%s: %s", server.name, exc)
        return session, None


def _crash_guard(
    rcon: RconClient,
    pack: PackClient,
    events: EventSource,
    store: AuditStore,
    *,
    hold_ticks: int,
) -> CrashGuard:
    """The server's ledger (fed by the pack client) and the guard that restores from it."""
    from bot.background.crash_guard import CrashGuard
    from bot.events.log_tail import LogTailer
    from bot.events.storage_poll import StoragePoller
    from bot.store.ledger import Ledger

    ledger = Ledger(store.db, pack.server.name)
    pack.recorder = ledger
    caught_up = events.caught_up if isinstance(events, LogTailer | StoragePoller) else None
    ring = isinstance(events, StoragePoller)
    ledger.ring = ring
    if isinstance(events, StoragePoller):
        events.watch = ledger  # each read of the ring: the start of a crash's window of doubt
    guard = CrashGuard(ledger, pack, hold_ticks=hold_ticks, caught_up=caught_up, ring=ring)
    pack.compared = guard.compared
    rcon.on_reconnect.append(guard.notice_reconnect)
    if isinstance(events, LogTailer):
        events.on_server_started.append(guard.notice_start)
    return guard


def _guarded(events: EventSource, guard: CrashGuard) -> EventSource:
    from bot.events.guarded import GuardedEvents

    return GuardedEvents(events, guard)


async def build_services(
    settings: Settings, *, embedded: EmbeddedStarter | None = None
) -> Services:
    """Build every service from the settings; with no server configured, start an embedded one."""
    from bot.store.audit import AuditStore
    from bot.store.db import settings_database

    started: Embedded | None = None
    if not settings.servers:
        starter = embedded or start_embedded_mcsim
        started = await starter(settings)
        settings = settings.model_copy(update={"servers": list(started.servers)})
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    store = AuditStore(settings_database(settings))
    servers: dict[str, ServerServices] = {}
    for config in settings.servers:
        sftp, remote = await connect_sftp(config)
        servers[config.name] = build_server(settings, config, store, sftp=sftp, remote=remote)
    return Services(
        settings, servers, store, started, scheduler=build_scheduler(settings, servers, store)
    )


def build_scheduler(
    settings: Settings, servers: dict[str, ServerServices], store: AuditStore
) -> Scheduler:
    """The wall-clock scheduler over the servers, its rows in the shared database (not started:
    Services.start starts it, Services.close stops it)."""
    from bot.store.schedules import ScheduleStore
    from bot.wallclock.scheduler import Scheduler

    return Scheduler(
        ScheduleStore(store.db),
        servers,
        max_late=settings.max_late,
        default_timezone=settings.timezone,
    )


async def start_embedded_mcsim(settings: Settings) -> Embedded:
    """The default hook: :func:`bot.minecraft.embedded.start_embedded` (mcsim, pack verified)."""
    from bot.minecraft.embedded import start_embedded

    return await start_embedded(settings)
