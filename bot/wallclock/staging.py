"""What the wall-clock scheduler does on a server before a run is due: its request staged
STAGE_LEAD ahead (PackClient.stage), so that at the due time one RCON call queues it
(submit_staged), and its countdown said to the players (the row's `announce`)."""

from __future__ import annotations

__all__ = ["Staging", "announce", "announcement", "drop_staged", "task_key"]

import contextlib
import logging
from collections.abc import Callable, Coroutine, Mapping
from typing import Protocol

from bot.config import ServerConfig
from bot.errors import BotError
from bot.i18n import use_locale
from bot.minecraft import handover
from bot.minecraft.conditions import pack_cond
from bot.minecraft.pack_client import PackClient, Staged
from bot.store.schedules import Schedule, ScheduleStore
from bot.wallclock.due_heap import DueHeap, due_row

log = logging.getLogger(__name__)


class _Server(Protocol):
    @property
    def config(self) -> ServerConfig: ...
    @property
    def pack(self) -> PackClient: ...


def task_key(schedule_id: int, due: float) -> str:
    """The bot key of a run's task: the same for its staging and every hand-over attempt."""
    return f"w{schedule_id}d{int(due * 1000)}"


async def drop_staged(pack: PackClient, key: str) -> None:
    with contextlib.suppress(BotError):  # a leftover is overwritten by the row's next staging
        await pack.unstage(key)


Spawn = Callable[[Coroutine[object, object, None]], object]


class Staging:
    """Keeps each armed row's next request, written to its server ahead of its due time,
    until its hand-over takes it; drops it from the server when the row stops or moved."""

    def __init__(
        self,
        store: ScheduleStore,
        servers: Mapping[str, _Server],
        heap: DueHeap,
        spawn: Spawn,
    ) -> None:
        self.store = store
        self.servers = servers
        self.heap = heap
        self.spawn = spawn
        self._staged: dict[int, Staged] = {}  # id -> its next run's request, staged ahead

    async def stage(self, schedule_id: int, due: float) -> None:
        """Write the run's request to the server ahead of its due time (see STAGE_LEAD)."""
        row = await due_row(self.store, schedule_id, due)
        server = self.servers.get(row.server) if row is not None else None
        if row is None or server is None:
            return
        try:
            staged = await server.pack.stage(
                row.command,
                row.task_id,
                key=f"w{row.id}",
                retry=row.retry,
                retry_delay=row.retry_delay,
                task_key=task_key(row.id, due),
                cond=pack_cond(row.conditions),
                on_doubt=row.on_doubt,
            )
        except (BotError, ValueError) as e:  # the hand-over writes it at its time instead
            log.info("staging %s on %s failed: %s", row.task_id, row.server, e)
            return
        if self.heap.armed(schedule_id, due):
            self._staged[schedule_id] = staged
        else:  # fired (staging was slow), cancelled or paused meanwhile
            self.spawn(drop_staged(server.pack, staged.key))

    def unstage(self, row: Schedule) -> None:
        staged = self._staged.pop(row.id, None)
        server = self.servers.get(row.server)
        if staged is not None and server is not None:
            self.spawn(drop_staged(server.pack, staged.key))

    def take(self, schedule_id: int) -> Staged | None:
        """The row's next run's request, staged ahead, if there is one (taken: used once)."""
        return self._staged.pop(schedule_id, None)


def announcement(config: ServerConfig, task_id: str, offset: int) -> str:
    """The countdown's command `offset` seconds before a run of `task_id`, in the server's
    language (players read it)."""
    with use_locale(config.locale):
        return handover.announcement(task_id, offset)


async def announce(
    store: ScheduleStore, servers: Mapping[str, _Server], schedule_id: int, due: float, offset: int
) -> None:
    """Say in the game that the row runs in `offset` seconds, in the server's language."""
    row = await due_row(store, schedule_id, due)
    server = servers.get(row.server) if row is not None else None
    if row is None or server is None:
        return
    try:
        await server.pack.rcon.command(announcement(server.config, row.task_id, offset))
    except BotError as e:  # a countdown that cannot be said is not worth an alert
        log.info("announcement of %s on %s failed: %s", row.task_id, row.server, e)
