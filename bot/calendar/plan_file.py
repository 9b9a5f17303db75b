"""The plan file: one server's planned wall-clock rows, game-time tasks and Discord events, and
the bot's programs, as a YAML document (docs/plan-file.md), read and written with PyYAML's safe
functions only.

Each entry is a pydantic model that refuses unknown keys, so a typo in a file is named (its
list, its number and the key) instead of being dropped. A program's steps are read as
/program save reads them (bot.programs.model), refused in its words with the program named.
"""

from __future__ import annotations

__all__ = [
    "CONDITION_KEYS",
    "VERSION",
    "EventEntry",
    "PlanDocument",
    "PlannedEntry",
    "ProgramEntry",
    "RepeatEntry",
    "TaskEntry",
    "condition_options",
    "dump",
    "load",
]

from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field
from pydantic import ValidationError as PydanticError

from bot import errors
from bot.i18n import _, refusals
from bot.minecraft import task_fields as fields
from bot.programs.model import (
    ProgramName,
    check_name,
    comment_cut,
    commented_runs,
    parse_steps,
    steps_yaml,
    value_node,
)
from bot.programs.model import Step as ProgramStep
from bot.store.schedules import OnDoubt  # the policy after a crash (bot.background.doubt)
from bot.times.dst import DstRepeated, DstSkipped

# files without the condition keys or `programs` (written before them) read as they did; a bot
# older than `programs` refuses a file with them (an unknown key), it never misreads one
VERSION = 1
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


class ProgramEntry(_Entry):
    """A saved program's newest version: its name and its steps as /program save takes them.
    Programs are the bot's, not a server's: every server's file has them all."""

    name: ProgramName
    steps: list[ProgramStep]


class RepeatEntry(_Entry):
    """A program started on a repeat on this server (`/program repeat`'s options): each
    occurrence starts the program's newest version."""

    program: ProgramName
    when: fields.TimeText | None = None  # an interval's next start: its grid counts from it
    repeat: fields.TimeText
    timezone: fields.ZoneName = "UTC"
    dst_repeated: DstRepeated | None = None
    dst_skipped: DstSkipped | None = None


class PlanDocument(_Entry):
    version: Literal[1]
    server: str = Field(min_length=1, max_length=100)
    planned: list[PlannedEntry] = Field(default_factory=list)
    tasks: list[TaskEntry] = Field(default_factory=list)
    events: list[EventEntry] = Field(default_factory=list)
    programs: list[ProgramEntry] = Field(default_factory=list)
    repeats: list[RepeatEntry] = Field(default_factory=list)


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


def _cut_runs(text: str) -> dict[tuple[int, int], int]:
    """The steps (program and step, from 1) whose command YAML cut at a comment, by that line
    (bot.programs.model.commented_runs), which /program save refuses."""
    listed = value_node(yaml.compose(text, Loader=yaml.SafeLoader), "programs")
    if not isinstance(listed, yaml.SequenceNode):
        return {}
    return {
        (p, s): line
        for p, program in enumerate(listed.value, 1)
        for s, line in commented_runs(value_node(program, "steps"), text)
    }


def _refused(entry: str, why: object) -> errors.ValidationError:
    return errors.ValidationError(
        _(
            "The plan file's entry {entry} is refused: {why} Nothing was changed.",
            entry=entry,
            why=why,
        )
    )


def _check_programs(text: str, data: dict[str, Any]) -> None:
    """Each program's name and steps refused as /program save refuses them (the program, the
    step's number and its key named); the entries' shape is the schema's to refuse."""
    listed = data.get("programs")
    if not isinstance(listed, list) or not listed:
        return
    cut = _cut_runs(text)
    for number, item in enumerate(listed, 1):
        if not isinstance(item, dict):
            continue
        name, steps = item.get("name"), item.get("steps")
        entry = f"programs[{number}]" + (f" ({name})" if isinstance(name, str) and name else "")
        try:
            if isinstance(name, str):
                check_name(name)
            for (p, step), line in sorted(cut.items()):
                if p == number:
                    problem = comment_cut(line)
                    raise errors.ValidationError(_("Step {n}: {problem}", n=step, problem=problem))
            if isinstance(steps, list):
                # the steps as YAML text again, read as /program save reads its option
                parse_steps(steps_yaml(steps))
        except errors.BotError as exc:
            raise _refused(entry, exc) from None


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
    _check_programs(text, data)
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
