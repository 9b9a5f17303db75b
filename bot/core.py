"""The application with no face in it: settings -> services -> operations, and the audit trail.

:func:`build_core` makes it; whichever faces are configured are handed the :class:`Core`: the
Discord bot (bot.app, which adds its audit channel to the :class:`AuditTrail`), the dashboard and
API, the console. Nothing here imports discord.py, so ``python -m bot serve`` (the core, its
background work and the dashboard) runs with no Discord at all.
"""

from __future__ import annotations

__all__ = ["AuditTrail", "Core", "build_core"]

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bot.operations import Operations
from bot.operations.base import AuditEntry, Auditor, StoreAuditor
from bot.plugins import PluginState, load_plugins
from bot.services import build_services

if TYPE_CHECKING:
    from bot.config import Settings
    from bot.services import Services

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
    plugins: list[PluginState] = field(default_factory=list)  # each installed plugin's state

    @classmethod
    def around(cls, services: Services) -> Core:
        """The core over services already built (the tests' and the Discord bot's own)."""
        audit = AuditTrail(services)
        return cls(services.settings, services, audit, Operations(services, audit))

    async def start(self) -> None:
        """The background work: schedulers, crash guards, log and ring readers."""
        await self.services.start()

    async def close(self) -> None:
        await self.services.close()


async def build_core(settings: Settings) -> Core:
    """The core with the installed plugins loaded (bot.plugins): their operations are in the
    registry before any face is made from it."""
    core = Core.around(await build_services(settings))
    core.plugins = await load_plugins(core.ops, settings)
    return core
