"""The plan file: one server's planned wall-clock rows, game-time tasks and Discord events as a
YAML document (docs/plan-file.md), read and written with PyYAML's safe functions only.

Each entry is a pydantic model that refuses unknown keys, so a typo in a file is named (its
list, its number and the key) instead of being dropped.
"""

from __future__ import annotations

__all__ = [
    "CONDITION_KEYS",
    "VERSION",
    "EventEntry",
    "PlanDocument",
    "PlannedEntry",
    "TaskEntry",
    "condition_options",
    "dump",
    "load",
]

from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field
from pydantic import ValidationError as PydanticError

from bot import errors
from bot.i18n import _, refusals
from bot.minecraft import task_fields as fields
from bot.store.schedules import OnDoubt  # the policy after a crash (bot.background.doubt)
from bot.times.dst import DstRepeated, DstSkipped

VERSION = 1  # files without the condition keys (written before them) read as they did
# the conditions checked when a task is due, as /schedule's options (bot.minecraft.conditions);
# each kind of entry has them last, so a file reads what runs first, then under what conditions
CONDITION_KEYS = ("require", "if_not", "max_wait", "after_wait")


class _Entry(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def condition_options(entry: PlannedEntry | TaskEntry | EventEntry) -> dict[str, str]:
    """The condition options an entry gives, by name (as a wall-clock row stores them)."""
    given = {k: getattr(entry, k) for k in CONDITION_KEYS}
    return {k: v for k, v in given.items() if v is not None}


class PlannedEntry(_Entry):
    """A wall-clock row: as /schedule's `when`, `repeat`, `timezone`, `announce`, `dst_repeated`,
    `dst_skipped`."""

    id: fields.TaskId
    run: fields.Command
    when: fields.TimeText | None = None
    repeat: fields.TimeText | None = None
    timezone: fields.ZoneName = "UTC"
    announce: fields.TimeText | None = None
    # what it does when the clocks change (bot.times.dst); left out: the default
    dst_repeated: DstRepeated | None = None
    dst_skipped: DstSkipped | None = None
    retry: fields.Retries = 0
    retry_delay: fields.Period = 1
    as_player: fields.Player | None = None
    on_doubt: OnDoubt = "skip"
    paused: bool = False
    require: fields.Require | None = None
    if_not: fields.IfNot | None = None
    max_wait: fields.MaxWait | None = None
    after_wait: fields.AfterWait | None = None


class TaskEntry(_Entry):
    """A game-time task in the pack's queue: `time` ticks from now (its remaining delay)."""

    id: fields.TaskId
    run: fields.Command
    time: fields.Ticks
    every: fields.Period | None = None
    retry: fields.Retries = 0
    retry_delay: fields.Period = 1
    as_player: fields.Player | None = None
    on_doubt: OnDoubt = "skip"
    paused: bool = False
    require: fields.Require | None = None
    if_not: fields.IfNot | None = None
    max_wait: fields.MaxWait | None = None
    after_wait: fields.AfterWait | None = None


class EventEntry(_Entry):
    """A Discord scheduled event with its start and end commands (local times in `timezone`)."""

    name: str = Field(min_length=1, max_length=100)
    start: str
    end: str
    timezone: fields.ZoneName = "UTC"
    location: str | None = None
    description: str | None = None
    start_run: fields.Command | None = None
    end_run: fields.Command | None = None
    repeat: fields.TimeText | None = None
    # in-game countdown before the start, as /event create's
    announce: fields.TimeText | None = None
    reminders: fields.TimeText | None = None  # Discord reminders before the start
    require: fields.Require | None = None  # the start task's conditions
    if_not: fields.IfNot | None = None
    max_wait: fields.MaxWait | None = None
    after_wait: fields.AfterWait | None = None


class PlanDocument(_Entry):
    version: Literal[1]
    server: str = Field(min_length=1, max_length=100)
    planned: list[PlannedEntry] = Field(default_factory=list)
    tasks: list[TaskEntry] = Field(default_factory=list)
    events: list[EventEntry] = Field(default_factory=list)


def dump(doc: PlanDocument) -> str:
    """The document as YAML, keys in the schema's order, defaults left out."""
    data = doc.model_dump(exclude_defaults=True)
    data = {"version": doc.version, **data}
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, default_flow_style=False)


def _where(loc: tuple[int | str, ...], data: object) -> str:
    """`planned[2] (raid).repeat` for a pydantic location."""
    said = ""
    node = data
    for part in loc:
        if isinstance(part, int):
            said += f"[{part + 1}]"
            node = node[part] if isinstance(node, list) and part < len(node) else None
            if isinstance(node, dict) and (label := node.get("id") or node.get("name")):
                said += f" ({label})"
        else:
            said += f".{part}" if said else str(part)
            node = node.get(part) if isinstance(node, dict) else None
    return said


def load(text: str) -> PlanDocument:
    """The document in `text`; errors.ValidationError naming the entry and why otherwise."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise errors.ValidationError(_("The plan file is not YAML: {error}", error=exc)) from None
    if not isinstance(data, dict):
        raise errors.ValidationError(_("The plan file is not a YAML mapping with `version:`."))
    if data.get("version") != VERSION:
        raise errors.ValidationError(
            _(
                "The plan file has version {found}: this bot reads version {version}.",
                found=repr(data.get("version")),
                version=VERSION,
            )
        )
    try:
        return PlanDocument.model_validate(data)
    except PydanticError as exc:
        first = exc.errors()[0]
        loc = tuple(first["loc"])
        why = refusals.explain(first, PlanDocument, noun="key", label=str(loc[-1]) if loc else None)
        if len(loc) < 2:
            raise errors.ValidationError(_("The plan file is wrong: {why}", why=why)) from None
        raise errors.ValidationError(
            _("The plan file's entry {where}: {why}", where=_where(loc[:-1], data), why=why)
        ) from None
