"""What every operation works with: the services, the audit trail, the caller's rank."""

from __future__ import annotations

__all__ = ["AuditEntry", "Auditor", "Operations", "StoreAuditor"]

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Protocol

from bot import errors
from bot.config import ALL_SERVERS
from bot.i18n import _
from bot.operations.builtin import BUILTIN
from bot.operations.dryrun import DRYRUN
from bot.operations.program_dryrun import PROGRAM_DRYRUN
from bot.operations.program_repeats import PROGRAM_REPEAT_OPERATIONS
from bot.operations.programs import PROGRAM_OPERATIONS
from bot.operations.ranks import RANK_NAMES, Rank
from bot.operations.registry import Registry
from bot.operations.suggest import Suggest
from bot.operations.triggers import TRIGGER_OPERATIONS
from bot.operations.whoami import WHOAMI

if TYPE_CHECKING:
    from bot.discord.guildevents.binding import GuildEvents
    from bot.operations.caller import Caller
    from bot.plugins import PluginState
    from bot.programs.repeats import RepeatWatcher
    from bot.programs.runner import ProgramRunner
    from bot.services import ServerServices, Services
    from bot.triggers.watcher import TriggerWatcher
    from bot.wallclock.scheduler import Scheduler


@dataclass(frozen=True, slots=True)
class AuditEntry:
    """One change: who made it from which face, on which server, asked how, with what outcome."""

    caller: Caller
    server: ServerServices | None
    action: str
    request: Mapping[str, object]
    outcome: str


class Auditor(Protocol):
    """Where a change is recorded or told: the audit store, the Discord audit channel
    (bot.core.AuditTrail holds them in order)."""

    async def record(self, entry: AuditEntry) -> None: ...


class StoreAuditor:
    """The audit entry in the audit store, where it came from included: all a face with no
    audit channel records (a shell), and the first part of the core's audit trail."""

    def __init__(self, services: Services) -> None:
        self.services = services

    async def record(self, entry: AuditEntry) -> None:
        await self.services.audit.record(
            entry.caller.user_id,
            entry.caller.name,
            entry.server.name if entry.server is not None else "",
            entry.action,
            dict(entry.request),
            entry.outcome,
            face=entry.caller.face,
        )


class Operations:
    """The services and the auditor an operation needs, and the checks every one makes."""

    def __init__(self, services: Services, auditor: Auditor) -> None:
        self.services = services
        self.auditor = auditor
        # the Discord events' binding, handed over by their cog while it is loaded
        self.guild_events: GuildEvents | None = None
        # the dashboard's public address, set by the dashboard when it starts (the calendar
        # feed is served there)
        self.web_url: str | None = None
        # the operations every face derives its command from (bot.operations.registry)
        self.registry = Registry()
        for spec in (
            *BUILTIN,
            WHOAMI,
            DRYRUN,
            *PROGRAM_OPERATIONS,
            PROGRAM_DRYRUN,
            *PROGRAM_REPEAT_OPERATIONS,
            *TRIGGER_OPERATIONS,
        ):
            self.registry.add(spec)
        self.suggest = Suggest(self)  # what to offer while an option is typed
        # the installed plugins' states (bot.plugins), and the dashboard pages the loaded ones
        # bring, by their path's name: (label, Quart Blueprint)
        self.plugins: list[PluginState] = []
        self.pages: dict[str, tuple[str, Any]] = {}
        # where each installed plugin comes from (its entry point), and who is told when one is
        # reloaded (bot.plugins.reload_plugin: the Discord bot reloads its cogs)
        self.plugin_entries: dict[str, Any] = {}
        self.plugin_reloaded: list[Callable[[PluginState], Awaitable[None]]] = []
        self.programs: ProgramRunner | None = None  # made on first use (program_runner)
        self.repeats: RepeatWatcher | None = None  # made on first use (program_repeats)
        self.triggers: TriggerWatcher | None = None  # made on first use (trigger_watcher)

    def now(self) -> datetime:
        """The time on the scheduler's clock (a test's own), else the system's."""
        scheduler = self.services.scheduler
        return scheduler.clock.now() if scheduler is not None else datetime.now(UTC)

    def server(self, name: str | None) -> ServerServices:
        """The services of the named server, or of the only one when no name is given."""
        servers = self.services.servers
        if name:
            try:
                return servers[name]
            except KeyError:
                known = ", ".join(sorted(servers)) or _("none")
                raise errors.ValidationError(
                    _(
                        "There is no server called {name} (configured: {known}).",
                        name=repr(name),
                        known=known,
                    )
                ) from None
        if len(servers) == 1:
            return next(iter(servers.values()))
        if not servers:
            raise errors.ValidationError(_("No Minecraft server is configured."))
        raise errors.ValidationError(
            _("Several servers are configured: say which one with the `server` option.")
        )

    def group(self, name: str | None) -> list[ServerServices] | None:
        """The servers of a group (`all`, or one of DOOM_SERVER_GROUPS), in the settings'
        order; None when `name` is not a group (a server's name, or nothing)."""
        servers = self.services.servers
        if name is None or name in servers:
            return None
        if name == ALL_SERVERS:
            return list(servers.values())
        members = self.services.settings.server_groups.get(name)
        if members is None:
            return None
        return [servers[m] for m in members if m in servers]

    def program_runner(self) -> ProgramRunner:
        """The programs' steps made into the scheduler's rows (bot.programs): made once; its
        looks are started with the core's background work (bot.core.Core.start)."""
        if self.programs is None:
            from bot.programs.runner import ProgramRunner
            from bot.store.programs import ProgramStore

            self.programs = ProgramRunner(ProgramStore(self.services.db), self.scheduler())
        return self.programs

    def program_repeats(self) -> RepeatWatcher:
        """The programs started on a repeat (bot.programs.repeats): made once; started with
        the core's background work beside the runner."""
        if self.repeats is None:
            from bot.programs.repeats import RepeatWatcher
            from bot.store.program_repeats import RepeatStore

            self.repeats = RepeatWatcher(RepeatStore(self.services.db), self.program_runner())
        return self.repeats

    def trigger_watcher(self) -> TriggerWatcher:
        """The triggers' watcher (bot.triggers): made once; started with the core's background
        work, which hands it each server's log lines and starts (bot.core.Core.start)."""
        if self.triggers is None:
            from bot.store.triggers import TriggerStore
            from bot.triggers.watcher import TriggerWatcher

            runner = self.program_runner()
            self.triggers = TriggerWatcher(
                TriggerStore(self.services.db),
                runner,
                self.services.servers,
                runner.scheduler.clock,
                events=lambda: self.guild_events,
            )
        return self.triggers

    def scheduler(self) -> Scheduler:
        scheduler = self.services.scheduler
        if scheduler is None:
            raise errors.ValidationError(_("Wall-clock schedules are not available in this bot."))
        return scheduler

    @staticmethod
    def require(caller: Caller, rank: Rank, what: str) -> None:
        """Refuse (NotAllowed, a sentence) unless the caller holds `rank`; `what` names the
        operation as the faces call it (/schedule)."""
        if caller.rank >= rank:
            return
        raise errors.NotAllowed(
            _("You need the {role} role to use {what}.", role=_(RANK_NAMES[rank]), what=what)
        )

    async def audit(
        self,
        caller: Caller,
        server: ServerServices | None,
        action: str,
        request: Mapping[str, object],
        outcome: str,
    ) -> None:
        await self.auditor.record(AuditEntry(caller, server, action, request, outcome))
