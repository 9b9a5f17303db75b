"""What a planned row may be and become: the checks a new row passes before anything is stored
(its server, its command, its time, its id free on that server) and the state changes a row
allows (cancel an active or paused row, pause an active one, resume a paused one)."""

from __future__ import annotations

__all__ = ["RowRules", "ServerParts"]

from collections.abc import Mapping
from typing import Protocol

from bot.config import ServerConfig
from bot.errors import ValidationError
from bot.i18n import lazy
from bot.i18n.words import schedule_state
from bot.minecraft.conditions import conditions_from
from bot.minecraft.pack_client import PackClient
from bot.minecraft.pack_input import check_task_input
from bot.store.schedules import Schedule, ScheduleStore, State, taken
from bot.times.clock import Clock
from bot.times.when import Missed, Spec, build_spec

# the states a row may be in for each change (cancelled, paused, resumed)
_ALLOWED: dict[State, tuple[State, ...]] = {
    "cancelled": ("active", "paused"),
    "paused": ("active",),
    "active": ("paused",),
}


class ServerParts(Protocol):
    """What the scheduler uses of a server (bot.services.ServerServices has it)."""

    @property
    def config(self) -> ServerConfig: ...
    @property
    def pack(self) -> PackClient: ...
    @property
    def checker(self) -> _Checker: ...


class _Checker(Protocol):
    def check(self, command: str) -> None: ...


class RowRules:
    """Says whether a row may be planned or changed; raises ValidationError naming the input
    otherwise. Reads the store, never writes it."""

    def __init__(
        self,
        store: ScheduleStore,
        servers: Mapping[str, ServerParts],
        clock: Clock,
        default_timezone: str,
    ) -> None:
        self.store = store
        self.servers = servers
        self.clock = clock
        self.default_timezone = default_timezone

    def server(self, name: str) -> ServerParts:
        try:
            return self.servers[name]
        except KeyError:
            known = ", ".join(sorted(self.servers)) or "none"
            raise ValidationError(
                lazy(
                    "There is no server called {name} (configured: {known}).",
                    name=repr(name),
                    known=known,
                )
            ) from None

    async def check_new(
        self,
        *,
        server: str,
        command: str,
        task_id: str,
        when: str | None,
        repeat: str | None,
        timezone: str | None,
        announce: str | None,
        retry: int,
        retry_delay: int,
        as_player: str | None,
        missed: Missed | None,
        conditions: Mapping[str, str] | None,
        dst_repeated: str | None = None,
        dst_skipped: str | None = None,
    ) -> Spec:
        """Every check a new row passes: the Spec it would have."""
        self.check_row(server, command, task_id, retry, retry_delay, as_player, conditions)
        spec = build_spec(
            when,
            repeat,
            timezone,
            announce,
            now=self.clock.now(),
            default_timezone=self.default_timezone,
            missed=missed,
            dst_repeated=dst_repeated,
            dst_skipped=dst_skipped,
        )
        await self.check_free(server, task_id)
        return spec

    def check_row(
        self,
        server: str,
        command: str,
        task_id: str,
        retry: int,
        retry_delay: int,
        as_player: str | None,
        conditions: Mapping[str, str] | None,
    ) -> None:
        """A new row's checks but its time's: its server, its fields, its conditions and its
        command, as the server's checker reads it."""
        target = self.server(server)
        text = check_task_input(command, task_id, retry, retry_delay, as_player)
        conditions_from(conditions)
        target.checker.check(text)

    async def check_free(self, server: str, task_id: str) -> None:
        """No active or paused row of `server` has this task id."""
        if await self.store.find(server, task_id) is not None:
            raise ValidationError(taken(server, task_id), field="id")

    def check_change(self, row: Schedule, state: State) -> None:
        """`row` may become `state` (cancelled, paused, or active: resumed)."""
        if row.state in _ALLOWED[state]:
            return
        # raised in the asker's locale context: the state word is said in it now
        said = {"id": row.task_id, "state": schedule_state(row.state)}
        raise ValidationError(
            {
                "cancelled": lazy(
                    "The planned schedule `{id}` is {state}: it cannot be cancelled.", **said
                ),
                "paused": lazy(
                    "The planned schedule `{id}` is {state}: it cannot be paused.", **said
                ),
                "active": lazy(
                    "The planned schedule `{id}` is {state}: it cannot be resumed.", **said
                ),
            }[state]
        )

    @staticmethod
    def missing(schedule_id: int) -> ValidationError:
        return ValidationError(lazy("There is no planned schedule #{n}.", n=schedule_id))
