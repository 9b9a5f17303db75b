"""The programs of a plan file: the bot's saved programs (bot.programs), written in every server's
file, each as its newest version; an import saves a program whose steps differ from its newest
version as a new version and leaves an identical one alone (bot.operations.plan_steps).

A program is not a server's, but its runs are: a started program's steps are one-shot planned
rows on the server it runs on (task id ``<program>.<run>.<step>``). A file holds no runs, so
those rows are not written as planned entries: made again by an import they would be rows of
no run, which a later run of that number would take as its own (bot.programs.runner).
"""

from __future__ import annotations

__all__ = [
    "MAX_PROGRAMS",
    "ProgramStep",
    "entry_of",
    "note",
    "run_rows",
    "saved",
    "steps",
    "store",
]

from collections.abc import Sequence
from typing import TYPE_CHECKING

from bot import errors
from bot.calendar.plan_file import ProgramEntry
from bot.i18n import _
from bot.operations.plan_steps import Step, grouped, label
from bot.programs.model import steps_of_json
from bot.store.programs import Program, ProgramStore

if TYPE_CHECKING:
    from bot.operations.base import Operations
    from bot.store.schedules import Schedule

MAX_PROGRAMS = 10_000  # saved programs a file holds, at most
MAX_RUNS = 100_000  # a server's runs read to know its rows that are a run's steps

ProgramStep = Step[ProgramEntry, Program]


def store(ops: Operations) -> ProgramStore:
    return ProgramStore(ops.services.db)


def entry_of(program: Program) -> ProgramEntry:
    return ProgramEntry(name=program.name, steps=steps_of_json(program.steps))


async def saved(ops: Operations) -> list[tuple[ProgramEntry, Program]]:
    """Every saved program's newest version, by name, as an entry and as stored."""
    found = await store(ops).programs(limit=MAX_PROGRAMS)
    # sorted here, not by the database: PostgreSQL's collation orders names unlike SQLite's,
    # and a file moved between the two is written again byte for byte
    return [(entry_of(p), p) for p in sorted(found, key=lambda p: p.name)]


def _unique(entries: Sequence[ProgramEntry]) -> None:
    """A program's name is one program: two entries of one name would save two versions."""
    seen: dict[str, int] = {}
    for number, entry in enumerate(entries, start=1):
        if entry.name in seen:
            raise errors.ValidationError(
                _(
                    "The plan file's entry {entry} is refused: {first} has the same name. "
                    "Nothing was changed.",
                    entry=label("programs", number, entry.name),
                    first=f"programs[{seen[entry.name]}]",
                )
            )
        seen[entry.name] = number


def steps(
    entries: Sequence[ProgramEntry], have: Sequence[tuple[ProgramEntry, Program]]
) -> list[ProgramStep]:
    """What each program entry would do against the newest saved versions; the steps were
    checked when the file was read (bot.calendar.plan_file.load)."""
    _unique(entries)
    held = {entry.name: [(entry, program)] for entry, program in have}
    return grouped("programs", entries, held, lambda e: e.name)


def note(step: ProgramStep, version: int | None) -> str:
    """What a changed program's line adds: the version its steps are (or would be) saved as."""
    if step.verdict != "change":
        return ""
    if version is None:  # the dry run: the one after the newest, unless another save comes first
        return _(
            " (its steps differ: it would be saved as version {version})",
            version=step.replaces[0][1].version + 1,
        )
    return _(" (its steps differ: saved as version {version})", version=version)


async def run_rows(ops: Operations, server: str, rows: Sequence[Schedule]) -> set[int]:
    """The rows of `rows` that are a program run's steps on `server` (linked to the run or not
    yet: a row is made before it is linked)."""
    candidates: dict[int, tuple[str, int]] = {}
    for row in rows:
        parts = row.task_id.rsplit(".", 2)
        if len(parts) == 3 and parts[1].isdigit() and parts[2].isdigit():
            candidates[row.id] = (parts[0], int(parts[1]))
    if not candidates:
        return set()
    runs = await store(ops).runs(servers=[server], limit=MAX_RUNS)
    ours = {(run.program, run.id) for run in runs}
    return {row_id for row_id, key in candidates.items() if key in ours}
