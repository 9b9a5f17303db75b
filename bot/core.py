"""The application with no face in it: settings -> services -> operations, and the audit trail.

:func:`build_core` makes it; whichever faces are configured are handed the :class:`Core`: the
Discord bot (bot.discord.app, which adds its audit channel to the :class:`AuditTrail`), the
dashboard and API, the console. Nothing here imports discord.py, so ``python -m bot serve`` (the
core, its background work and the dashboard) runs with no Discord at all.
"""

from __future__ import annotations

__all__ = ["AuditTrail", "Core", "build_core", "follow_alerts"]

import asyncio
import functools
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bot.aio import cancel_and_wait
from bot.events.kinds import ALERTS, KINDS
from bot.minecraft.selftest import is_selftest_id
from bot.operations import Operations
from bot.operations.base import AuditEntry, Auditor, StoreAuditor
from bot.plugins import RELOAD, PluginState, load_plugins
from bot.plugins.runtime import start_plugin_work
from bot.services import build_services

if TYPE_CHECKING:
    from bot.config import Settings
    from bot.events.event import Event
    from bot.services import ServerServices, Services

log = logging.getLogger(__name__)


@dataclass(eq=False)
class AuditTrail:
    """The operations' auditor: the audit store first (the record), then every sink (the
    Discord audit channel); a sink that fails is logged, never the caller's failure."""

    services: Services
    sinks: list[Auditor] = field(default_factory=list)

    async def record(self, entry: AuditEntry) -> None:
        await StoreAuditor(self.services).record(entry)
        for sink in list(self.sinks):
            try:
                await sink.record(entry)
            except Exception:  # the change is recorded; a channel that failed must not undo it
                log.exception("an audit sink failed for %s", entry.action)


@dataclass(eq=False)
class Core:
    """What every face drives: the settings, the services and the operations over them."""

    settings: Settings
    services: Services
    audit: AuditTrail
    ops: Operations
    _plugin_work: list[asyncio.Task[None]] = field(default_factory=list)

    @classmethod
    def around(cls, services: Services) -> Core:
        """The core over services already built (the tests' and the Discord bot's own)."""
        audit = AuditTrail(services)
        ops = Operations(services, audit)
        ops.registry.add(RELOAD)  # the plugin host's own operation, every face's
        return cls(services.settings, services, audit, ops)

    @property
    def plugins(self) -> list[PluginState]:
        """Each installed plugin's state (bot.plugins), as loaded at build time."""
        return self.ops.plugins

    async def start(self) -> None:
        """The background work: schedulers, crash guards, log and ring readers; then the
        loaded plugins' listeners and tasks (bot.plugins.runtime)."""
        await self.services.start()
        if self.services.scheduler is not None:  # programs run on the scheduler's rows
            runner = self.ops.program_runner()
            for server in self.services.servers.values():
                if server.guard is not None:  # a step's run ended in game: look at once
                    server.guard.on_own_event.append(runner.saw_event)
            await runner.start()
            await self._start_repeats()
            await self._start_triggers()
        self._plugin_work = start_plugin_work(self.ops)

    async def _start_repeats(self) -> None:
        """The programs on a repeat, their alerts on each server's event stream."""
        from bot.events.guarded import GuardedEvents

        repeats = self.ops.program_repeats()
        for name, server in self.services.servers.items():
            if isinstance(server.events, GuardedEvents):
                server.events.add_alerts(repeats.alerts_of(name))
        await repeats.start()

    async def _start_triggers(self) -> None:
        """The triggers' watcher, told of each server's starts and log lines, its alerts on
        each server's event stream."""
        from bot.events.guarded import GuardedEvents

        watcher = self.ops.trigger_watcher()
        for name, server in self.services.servers.items():
            if server.guard is not None:
                server.guard.on_started.append(functools.partial(watcher.on_started, name))
            inner = getattr(server.events, "inner", server.events)
            hooks = getattr(inner, "on_line", None)
            if isinstance(hooks, list):
                hooks.append(functools.partial(watcher.on_line, name))
            if isinstance(server.events, GuardedEvents):
                server.events.add_alerts(watcher.alerts_of(name))
        await watcher.start()

    async def close(self) -> None:
        await cancel_and_wait(*self._plugin_work)
        if self.ops.triggers is not None:
            await self.ops.triggers.stop()
        if self.ops.repeats is not None:
            await self.ops.repeats.stop()
        if self.ops.programs is not None:
            await self.ops.programs.stop()
        await self.services.close()


async def build_core(settings: Settings) -> Core:
    """The core with the installed plugins loaded (bot.plugins): their operations are in the
    registry before any face is made from it."""
    core = Core.around(await build_services(settings))
    core.ops.plugins = await load_plugins(core.ops, settings)
    return core


async def follow_alerts(
    core: Core, on_alert: Callable[[ServerServices, Event], None] | None = None
) -> None:
    """Read every server's events until cancelled, for a face with no Discord alerts cog (the
    console, ``serve``): through the bus, so the crash guard keeps its record as they pass and
    the dashboard reads the same stream; each alert is logged and given to `on_alert`. Several
    processes on one database: the alerts of the servers another process reads (relayed) are
    given to `on_alert` but logged by that process only, once in the fleet's logs."""

    async def one(server: ServerServices) -> None:
        assert server.events is not None
        async with core.services.bus.subscribe(server.name, server.events) as stream:
            async for event in stream:
                if event.type not in ALERTS or is_selftest_id(event.task_id):
                    continue
                if not event.relayed:
                    # the event's type and task first, as a log search would look for them
                    log.warning(
                        "alert: %s %s on %s (%s)",
                        event.type,
                        event.task_id,
                        server.name,
                        KINDS.get(event.type, event.type),
                    )
                if on_alert is not None:
                    try:
                        on_alert(server, event)
                    except Exception:  # one alert that cannot be shown stops none after it
                        log.exception("showing the alert %s failed", event.type)

    readers = [
        asyncio.create_task(one(s), name=f"events {s.name}")
        for s in core.services.servers.values()
        if s.events is not None
    ]
    try:
        await asyncio.gather(*readers)
    finally:
        await cancel_and_wait(*readers)
