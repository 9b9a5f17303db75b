"""An outcome's facts as data: a task, a planned row and a run as every program reads them (the
JSON API, the registry's outcomes, the pages' tables). Instants are ISO 8601 in UTC; a face that
shows them to a person says them in the reader's time zone."""

from __future__ import annotations

__all__ = ["planned_row", "run_row", "task_row"]

from datetime import datetime
from typing import TYPE_CHECKING, Any

from bot.operations.reads import doubt_fact, planned_facts
from bot.times.when import repeat_text

if TYPE_CHECKING:
    from bot.minecraft.pack_tasks import Task
    from bot.services import ServerServices
    from bot.store.history import HistoryEntry
    from bot.store.schedules import Schedule


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def task_row(task: Task, server: ServerServices) -> dict[str, Any]:
    """A game-time task as the pack holds it; `due_at` is when its tick comes at full speed
    (none while paused)."""
    paused = task.list == "paused" and task.remaining is not None
    return {
        "id": task.id,
        "run": task.run,
        "list": task.list,
        "due_tick": task.due,
        "due_at": None if paused else server.pack.eta(task.due).isoformat(),
        "remaining": task.remaining,
        "executor": task.executor,
        "player": task.player,
        "dimension": task.dimension,
        "retry_left": task.retry_left,
        "retry_delay": task.retry_delay,
        "interval": task.interval,
    }


def planned_row(plan: Schedule) -> dict[str, Any]:
    """A wall-clock schedule (the scheduler's row)."""
    return {
        "id": plan.id,
        "task_id": plan.task_id,
        "run": plan.command,
        "state": plan.state,
        "paused": plan.state == "paused",
        "when": repeat_text(plan.spec).replace("`", ""),
        "timezone": plan.timezone,
        "next_due": _iso(plan.next_due),
        "last_outcome": plan.last_outcome,
        "last_lateness": plan.last_lateness,
        "run_count": plan.run_count,
        # the options as given; `facts` as every face says them (the shared markup)
        "conditions": dict(plan.conditions) if plan.conditions else None,
        "announce": list(plan.announce),
        "on_doubt": plan.on_doubt,
        "facts": [list(fact) for fact in [*planned_facts(plan), doubt_fact(plan.on_doubt)] if fact],
    }


def run_row(entry: HistoryEntry) -> dict[str, Any]:
    """One run of a task id's history."""
    return {
        "kind": entry.kind,
        "planned": entry.planned,
        "due": _iso(entry.due),
        "handed_over": _iso(entry.handed_over),
        "ran": _iso(entry.ran),
        "lateness": entry.lateness,
        "outcome": entry.outcome,
        "attempts": entry.attempts,
        "triggered_by": entry.triggered_by,
    }
