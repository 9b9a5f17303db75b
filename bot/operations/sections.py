"""What a read shows, as data: a :class:`Section` is a titled block (lines, named fields, a
footer, a tone) that every face renders its own way: Discord as an embed
(bot.discord.slash.embeds), the console with rich, the JSON API as plain text. The sentences
are the faces' shared markup (`code`, **bold**, instants as ``<t:N:F>``), so a face only has to
render that markup.

The builders here are the one place a page of a list, a task, a planned row, a run history, the
game clock and a server's status are laid out."""

from __future__ import annotations

__all__ = [
    "Field",
    "Section",
    "Tone",
    "alert_section",
    "clock_section",
    "history_line",
    "history_section",
    "page_section",
    "planned_line",
    "planned_section",
    "plugins_section",
    "scheduled_section",
    "section_text",
    "status_section",
    "task_line",
    "task_section",
]

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Literal

from bot.background.crash_guard import restored_count
from bot.events.kinds import ALERTS, shown_details
from bot.i18n import _, ngettext, pgettext
from bot.i18n.formats import decimal, number, stamp, stamp_with_distance
from bot.i18n.words import run_outcome, schedule_state
from bot.minecraft.conditions import describe
from bot.minecraft.pack_health import DAMAGE_ADVICE
from bot.operations.reads import doubt_fact, planned_facts
from bot.times.when import repeat_text

if TYPE_CHECKING:
    from bot.events.event import Event
    from bot.minecraft.pack_tasks import Task
    from bot.operations.reads import Clock, Page
    from bot.operations.runs import History
    from bot.operations.status import ServerStatus
    from bot.plugins import PluginState
    from bot.services import ServerServices
    from bot.store.history import HistoryEntry
    from bot.store.schedules import Run, Schedule

# what a section's colour says: a plain read, a planned row, a server that is well, one with a
# problem it can work around, one that cannot be reached
Tone = Literal["info", "planned", "ok", "warn", "bad"]
SHORT_RUN = 60  # a command in a list's line is cut to this many characters
MAX_FIELD = 1024  # Discord's longest field value, kept by every face alike
_MARKUP = re.compile(r"([\\*_~|`>])")


@dataclass(frozen=True)
class Field:
    name: str
    value: str
    inline: bool = True  # beside the fields around it, where the face lays them out so


@dataclass(frozen=True)
class Section:
    title: str
    lines: tuple[str, ...] = ()
    fields: tuple[Field, ...] = ()
    footer: str = ""
    tone: Tone = "info"
    author: str = ""  # the server it is about, in a group's reply
    colour: int | None = None  # a colour of its own (an alert's kind), over the tone's


def section_text(section: Section) -> str:
    """A section as lines of the shared markup (the JSON API's and the log's form)."""
    parts = [f"**{section.title}**" if section.title else ""]
    if section.author:
        parts.insert(0, section.author)
    parts += section.lines
    parts += [f"{f.name}: {f.value}" for f in section.fields]
    if section.footer:
        parts.append(section.footer)
    return "\n".join(p for p in parts if p)


def _escape(text: str) -> str:
    """A name shown as itself, not read as markup (a user called `_x_`)."""
    return _MARKUP.sub(r"\\\1", text)


def _short(run: str) -> str:
    run = run if len(run) <= SHORT_RUN else run[: SHORT_RUN - 1] + "…"
    return run.replace("`", "'")


# -- the lists ---------------------------------------------------------------------------------


def task_line(task: Task, server: ServerServices) -> str:
    """One task of `/list`: its id, when it is due, for whom, its command."""
    if task.list == "paused" and task.remaining is not None:
        when = _("paused, {n} t left", n=number(task.remaining))
    else:
        when = stamp(server.pack.eta(task.due), "R")
    who = _(" as `{player}`", player=task.executor) if task.player and task.executor else ""
    return f"`{task.id}` {when}{who}\n  `{_short(task.run)}`"


def _late(row: Schedule) -> str:
    if row.last_outcome is None:
        return ""
    late = "" if row.last_lateness is None else _(", {s} s late", s=f"{row.last_lateness:.1f}")
    return _("; last run: {outcome}{late}", outcome=run_outcome(row.last_outcome), late=late)


def planned_line(row: Schedule, upcoming: Sequence[datetime] = ()) -> str:
    """One row of `/list which:planned`: its next run, the ones after it (repeating rows), how
    late the last one ran."""
    when: str
    if row.state == "active" and row.next_due is None:
        when = _("running now")  # handed over, or waiting for its player
    elif row.state == "paused" or row.next_due is None:
        when = schedule_state(row.state)
    else:
        when = stamp_with_distance(row.next_due)
        later = [t for t in upcoming if t > row.next_due][:2]
        if later:
            when += _(", then {times}", times=", ".join(stamp(t, "f") for t in later))
    head = _(
        "`{id}` {when}, {repeats}{late}",
        id=row.task_id,
        when=when,
        repeats=repeat_text(row.spec),
        late=_late(row),
    )
    return f"{head}\n  `{_short(row.command)}`"


def page_section(page: Page) -> Section:
    """A page of `/list`: the pack's queue, offline or paused list, or the planned rows."""
    server = page.server
    if page.which == "planned":
        title = _("planned on {server}: {n} schedule(s)", server=server.name, n=page.total)
        lines = [planned_line(row, upcoming) for row, upcoming in page.planned]
        footer = _(
            "page {page} of {pages}; times in your own time zone",
            page=page.page + 1,
            pages=page.pages,
        )
    else:
        title = _(
            "{list} on {server}: {n} task(s)",
            list=pgettext("slash option choice", page.which),
            server=server.name,
            n=page.total,
        )
        lines = [task_line(t, server) for t in page.tasks]
        footer = _("page {page} of {pages}", page=page.page + 1, pages=page.pages)
    return Section(title, tuple(lines) or (_("Empty."),), footer=footer)


# -- one task ----------------------------------------------------------------------------------


def _doubt(on_doubt: str) -> tuple[Field, ...]:
    fact = doubt_fact(on_doubt)
    return () if fact is None else (Field(fact[0], fact[1]),)


def task_section(task: Task, server: ServerServices, on_doubt: str, run: str) -> Section:
    """A game-time task as `/show` shows it; `run` is its command as the face can hold it."""
    fields = [
        Field(_("list"), pgettext("slash option choice", task.list)),
        Field(_("executor"), task.executor or _("the server")),
        Field(_("dimension"), task.dimension),
        Field(_("retries left"), str(task.retry_left)),
        Field(_("retry delay"), _("{n} t", n=task.retry_delay)),
        Field(_("interval"), _("{n} t", n=task.interval) if task.interval else _("none")),
    ]
    if task.list == "paused" and task.remaining is not None:
        fields.append(Field(_("remaining"), _("{n} t", n=task.remaining)))
    else:
        fields.append(Field(_("ETA"), stamp(server.pack.eta(task.due), "R")))
    return Section(
        _("Task `{id}`", id=task.id),
        (f"```\n{run}\n```", _("due at tick {tick}", tick=task.due)),
        (*fields, *_doubt(on_doubt)),
    )


def scheduled_section(
    task: Task, server: ServerServices, *, title: str, on_doubt: str | None = None
) -> Section:
    """A task just made: what runs, when (game tick and wall-clock ETA), how it retries, its
    policy after a crash when it is not the default."""
    fields = [
        Field(_("id"), f"`{task.id}`"),
        Field(_("server"), server.name),
        Field(_("list"), pgettext("slash option choice", task.list)),
        Field(_("runs"), f"```\n{task.run[:1000]}\n```", inline=False),
    ]
    if task.list == "paused" and task.remaining is not None:
        fields.append(Field(_("remaining"), _("{n} ticks", n=number(task.remaining))))
    else:
        eta = stamp(server.pack.eta(task.due), "R")
        fields.append(Field(_("due"), _("tick {tick} ({eta})", tick=task.due, eta=eta)))
    if task.executor:
        who = _("player") if task.player else _("entity")
        fields.append(Field(_("as"), f"{who} `{task.executor}`"))
    if task.retry_left:
        every = _("{n} (every {delay} t)", n=task.retry_left, delay=task.retry_delay)
        fields.append(Field(_("retries"), every))
    if task.interval:
        fields.append(Field(_("repeats"), _("every {n} ticks", n=number(task.interval))))
    if task.cond is not None:
        fields.append(Field(_("only if"), describe(task.cond), inline=False))
    fields += _doubt(on_doubt or "skip")
    return Section(title, fields=tuple(fields), tone="planned")


def planned_section(
    row: Schedule, upcoming: Sequence[datetime], runs: Sequence[Run] = (), *, title: str
) -> Section:
    """One planned row: what, when (the next runs), its last runs."""
    fields = [
        Field(_("id"), f"`{row.task_id}`"),
        Field(_("server"), row.server),
        Field(_("state"), schedule_state(row.state)),
        Field(_("runs"), f"```\n{row.command[:1000]}\n```", inline=False),
    ]
    if upcoming and row.state == "active":
        lines = [stamp_with_distance(t) for t in upcoming]
        fields.append(Field(_("next runs"), "\n".join(lines), inline=False))
    fields.append(Field(_("repeats"), repeat_text(row.spec)))
    fields += [Field(name, text, inline=False) for name, text in planned_facts(row)]
    if row.as_player:
        fields.append(Field(_("as"), _("player `{player}`", player=row.as_player)))
    if row.retry:
        fields.append(
            Field(_("retries"), _("{n} (every {delay} t)", n=row.retry, delay=row.retry_delay))
        )
    fields.append(Field(_("if missed"), _("run once, late") if row.missed == "once" else _("skip")))
    fields += _doubt(row.on_doubt)
    if runs:
        lines = []
        for run in runs[:5]:
            late = "" if run.lateness is None else _(", {s} s late", s=f"{run.lateness:.2f}")
            lines.append(f"{stamp(run.due)}: {run_outcome(run.outcome)}{late}")
        fields.append(Field(_("last runs"), "\n".join(lines), inline=False))
    footer = _("planned #{n} by {name}", n=row.id, name=row.created_by.name)
    return Section(title, fields=tuple(fields), footer=footer, tone="planned")


# -- runs and the clock ------------------------------------------------------------------------


def history_line(entry: HistoryEntry) -> str:
    """`<due> · ran · 0.3 s late · 1 attempt · run now by mod`"""
    parts = [stamp(entry.due, "f"), run_outcome(entry.outcome)]
    if entry.lateness is not None:
        parts.append(_("{s} s late", s=f"{entry.lateness:.1f}"))
    if entry.attempts:
        parts.append(ngettext("{n} attempt", "{n} attempts", entry.attempts, n=entry.attempts))
    if entry.triggered_by:
        parts.append(_("run now by {user}", user=_escape(entry.triggered_by)))
    if entry.kind == "game":
        parts.append(_("game time"))
    return " · ".join(parts)


def history_section(found: History) -> Section:
    lines = tuple(history_line(e) for e in found.entries) or (found.text,)
    footer = _(
        "page {page} of {pages}; {n} run(s) in the last {days} days",
        page=found.page,
        pages=found.pages,
        n=found.total,
        days=f"{found.days:g}",
    )
    title = _("History of `{id}` on {server}", id=found.task_id, server=found.server.name)
    return Section(title, lines, footer=footer)


def clock_section(clock: Clock) -> Section:
    fields = (
        Field(_("game time"), _("{n} ticks", n=number(clock.ticks))),
        Field(_("game day"), number(clock.day)),
        Field(_("TPS"), decimal(clock.tps)),
    )
    return Section(_("Time on {server}", server=clock.server.name), fields=fields)


# -- the plugins ---------------------------------------------------------------------------------


def plugins_section(states: Sequence[PluginState]) -> Section | None:
    """`/status`'s word on the installed plugins: each one's version and state, and why when it
    did not load; None when none is installed."""
    if not states:
        return None
    lines = []
    for p in states:
        line = f"`{p.name}` {p.version}".rstrip() + f": {_(p.state)}"
        lines.append(f"{line} ({p.why})" if p.why else line)
    bad = any(p.state in ("failed", "incompatible") for p in states)
    return Section(_("Installed plugins"), tuple(lines), tone="warn" if bad else "ok")


# -- a server's status -------------------------------------------------------------------------


def _checker(server: ServerServices) -> list[Field]:
    fields = [
        Field(
            _("commands checked"),
            _(
                "Minecraft {version}; {tree} tree, function permission level {level}",
                version=server.minecraft.describe(),
                tree=server.checker.tree,
                level=server.checker.function_permission_level,
            )[:MAX_FIELD],
            inline=False,
        )
    ]
    note = server.checker_note
    if note is not None:
        fields.append(Field(_("warning"), note[:MAX_FIELD], inline=False))
    return fields


def status_section(found: ServerStatus) -> Section:
    """`/status` of one server: RCON, the pack and its state, the software, the event source,
    TPS and the lists' sizes, and how commands are checked there."""
    server = found.server
    title = _("Status of {server}", server=server.name)
    if found.error is not None:
        fields = [
            Field("RCON", _("unavailable: {error}", error=found.error)[:MAX_FIELD], inline=False),
            Field(_("event source"), found.events[:MAX_FIELD]),
            *_checker(server),
        ]
        if found.background:
            fields.append(Field(_("background work"), found.background[:MAX_FIELD], inline=False))
        return Section(title, fields=tuple(fields), tone="bad")
    tone: Tone = "ok"
    fields = [
        Field(
            "RCON",
            _("ok ({host}:{port})", host=server.config.rcon_host, port=server.config.rcon_port),
        ),
        Field(_("pack version"), found.version or _("not installed")),
    ]
    if found.version:
        if found.damage is None:
            state = _("unknown: {error}", error=found.damage_error)
        elif not found.damage:
            state = _("ok (objectives and storages in place)")
        else:
            tone = "warn"
            state = _(
                "damaged: {problems}. {advice}",
                problems="; ".join(found.damage),
                advice=DAMAGE_ADVICE,
            )
        fields.append(Field(_("pack state"), state[:MAX_FIELD], inline=False))
    software = found.software or _("unknown: {error}", error=found.software_error)
    fields.append(Field(_("server software"), software[:MAX_FIELD]))
    fields.append(Field(_("event source"), found.events[:MAX_FIELD]))
    if found.background:
        fields.append(Field(_("background work"), found.background[:MAX_FIELD], inline=False))
    if found.sizes_error is not None:
        error = _("unavailable: {error}", error=found.sizes_error)[:MAX_FIELD]
        fields.append(Field(_("queues"), error, inline=False))
    else:
        fields.append(Field(_("TPS"), decimal(found.tps or 0.0)))
    for which, total in found.sizes.items():
        fields.append(Field(pgettext("slash option choice", which), number(total)))
    return Section(title, fields=(*fields, *_checker(server)), tone=tone)


# -- an alert ----------------------------------------------------------------------------------


def alert_section(event: Event) -> Section:
    """An alert from the pack's or the bot's events: what happened (its kind's title and
    colour), to which task, on which server, at which game time, with its details."""
    title, colour = ALERTS[event.type]
    count = restored_count(event)
    task = event.task_id if count is None else ngettext("{n} task", "{n} tasks", count)
    fields = []
    if task:  # a health alert is about the server, not a task
        fields.append(Field(_("task"), f"`{task[:100]}`"))
    fields.append(Field(_("server"), event.server))
    if event.game_time >= 0:
        fields.append(Field(_("game time"), str(event.game_time)))
    for name, shown in shown_details(event)[:20]:  # in this alert's locale
        fields.append(Field(name[:256], f"`{_clip(shown, 1000)}`"))
    footer = _("event {seq}", seq=event.seq)
    return Section(str(title), fields=tuple(fields), footer=footer, colour=colour)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
