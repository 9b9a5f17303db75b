"""An in-memory stand-in for the wall-clock schedules, for the Discord-edge tests of /event only.

It keeps what :class:`bot.discord.guildevents.event_tasks.EventTasks` promises (one-shot tasks at an
instant, cancel, status) on the injected clock, so the tests of the Discord half need no Minecraft
server.
The binding to the real scheduler is tested on mcsim in tests/e2e/test_e2e_discord_events.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from bot.discord.guildevents.event_tasks import TaskStatus
from bot.errors import ValidationError
from bot.times.clock import ManualClock


@dataclass
class Planned:
    id: int
    server: str
    task_id: str
    command: str
    due: datetime
    announce: tuple[int, ...]
    state: str = "active"
    outcome: str | None = None
    conditions: Mapping[str, str] | None = None


@dataclass
class MemoryTasks:
    clock: ManualClock
    rows: dict[int, Planned] = field(default_factory=dict)
    fail_schedules: list[int] = field(default_factory=list)  # fail the n-th schedule() from now
    calls: int = 0

    async def schedule(
        self,
        *,
        server: str,
        task_id: str,
        command: str,
        due: datetime,
        announce: tuple[int, ...],
        by_id: int,
        by_name: str,
        conditions: Mapping[str, str] | None = None,
    ) -> int:
        self.calls += 1
        if self.calls in self.fail_schedules:
            raise ValidationError("the schedule table is locked (test)")
        if due <= self.clock.now():
            raise ValidationError("due in the past")
        row = Planned(
            len(self.rows) + 1, server, task_id, command, due, announce, conditions=conditions
        )
        self.rows[row.id] = row
        return row.id

    async def cancel(self, task: int) -> None:
        row = self.rows.get(task)
        if row is not None and row.state == "active":
            row.state = "cancelled"

    async def status(self, task: int) -> TaskStatus | None:
        row = self.rows.get(task)
        if row is None:
            return None
        due = row.due if row.state == "active" else None
        return TaskStatus(row.id, due, row.state, row.outcome, row.due if row.outcome else None)

    async def find(self, server: str, task_id: str) -> int | None:
        for row in self.rows.values():
            if (row.server, row.task_id, row.state) == (server, task_id, "active"):
                return row.id
        return None

    def run_due(self, outcome: str = "ran") -> list[Planned]:
        """What the scheduler would hand over now."""
        ran = [r for r in self.rows.values() if r.state == "active" and r.due <= self.clock.now()]
        for row in ran:
            row.state, row.outcome = "done", outcome
        return ran

    def active(self) -> list[Planned]:
        return [r for r in self.rows.values() if r.state == "active"]
