"""A Discord scheduled event and its in-game tasks, kept as one thing.

:class:`GuildEvents` makes, moves and cancels both halves together: the guild scheduled event
(through discord.py) and the wall-clock tasks bound to it (through :class:`EventTasks`). Whichever
call fails, the half already made is undone, so there is never an event without its tasks nor
tasks without their event. Moves and cancels made in Discord's own UI arrive as gateway events and
are applied to the tasks; the bot's own edits come back the same way and change nothing (the stored
times already match). Reminders, the Discord status at start and end, the next occurrence of a
repeating event and the alerts about failed tasks are :mod:`bot.guildevents.timers`'s.
"""

from __future__ import annotations

__all__ = ["GuildEvents", "discord_error"]

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

import discord

from bot.errors import ValidationError
from bot.guildevents import draft as event_draft
from bot.guildevents.event_tasks import EventTasks, TaskStatus
from bot.guildevents.readiness import event_permission_problem, usable_guild
from bot.i18n import Joined, Lazy, Text, _, lazy, pick, use_locale
from bot.i18n.formats import stamp
from bot.i18n.words import event_state
from bot.minecraft.pack_input import check_run_text
from bot.store.guild_events import LIVE_STATES, EventRow, GuildEventStore, NewEvent
from bot.times.when import parse_timezone, parse_when

if TYPE_CHECKING:
    from bot.app import DoomBot
    from bot.services import ServerServices
    from bot.times.clock import Clock

log = logging.getLogger(__name__)

MOVE_TOLERANCE = 1.0  # seconds: Discord keeps times to the millisecond, the tasks to the second


def discord_error(exc: discord.HTTPException) -> str:
    return f"{exc.text or exc.status} (HTTP {exc.status})"


class GuildEvents:
    """Both halves of every event; see the module docstring."""

    def __init__(
        self,
        bot: DoomBot,
        store: GuildEventStore,
        tasks: EventTasks,
        clock: Clock,
        *,
        default_timezone: str = "UTC",
    ) -> None:
        self.bot = bot
        self.store = store
        self.tasks = tasks
        self.clock = clock
        self.default_timezone = default_timezone
        self._locks: dict[int, asyncio.Lock] = {}
        self.wake = asyncio.Event()  # rows changed: the timers look again
        self.alerts: list[str] = []  # every alert text posted, newest last (for /status, tests)

    def guild(self, guild_id: int | None) -> discord.Guild:
        """The guild to make events in; ValidationError saying why the bot cannot."""
        return usable_guild(self.bot.get_guild(guild_id) if guild_id is not None else None)

    def guild_locale(self, guild: discord.Guild | None) -> str:
        """What members read (the Discord event's own texts): DOOM_LOCALE, else the guild's."""
        preferred = guild.preferred_locale if guild is not None else None
        return pick(self.bot.settings.locale, preferred)

    def lock(self, event_id: int) -> asyncio.Lock:
        return self._locks.setdefault(event_id, asyncio.Lock())

    # -- reading --------------------------------------------------------------------------------

    async def find(self, text: str) -> EventRow:
        """The event a moderator names: `3`, `#3`, or its exact name (the newest live one)."""
        wanted = text.strip().removeprefix("#")
        if wanted.isdigit():
            row = await self.store.get(int(wanted))
            if row is not None and row.state != "creating":
                return row
        for row in reversed(await self.store.in_states(LIVE_STATES)):
            if row.name.lower() == text.strip().lower():
                return row
        raise ValidationError(
            _("There is no event {name}: see /event list for the ids.", name=repr(text.strip()))
        )

    async def refresh_counts(self, guild: discord.Guild | None) -> str | None:
        """Read the interested counts from Discord (one request for the guild). discord.py drops
        the gateway's user add/remove events for users it has not cached, which is every user
        without the privileged members intent, so the count Discord keeps is the one to trust.
        Returns a sentence when Discord could not be asked (the stored counts are shown then)."""
        if guild is None:
            return None
        try:
            found = await guild.fetch_scheduled_events(with_counts=True)
        except discord.HTTPException as exc:
            return _(
                "Interested counts are the last known ones: Discord did not answer ({status}).",
                status=exc.status,
            )
        for event in found:
            row = await self.store.by_discord(event.id)
            if row is not None and row.interested != event.user_count:
                await self.store.update(row.id, interested=event.user_count)
        return None

    async def outcomes(self, row: EventRow) -> dict[str, TaskStatus | None]:
        found: dict[str, TaskStatus | None] = {}
        for role, task in (("start", row.start_task), ("end", row.end_task)):
            if task is not None:
                found[role] = await self.tasks.status(task)
        return found

    def location(self, server: ServerServices) -> str:
        address = getattr(server.config, "public_address", None)
        return (address or _("Minecraft server {name}", name=server.name))[
            : event_draft.MAX_LOCATION
        ]

    # -- create ---------------------------------------------------------------------------------

    def check_commands(self, server: ServerServices, *commands: str) -> None:
        for command in commands:
            server.checker.check(check_run_text(command))

    async def create(
        self,
        guild: discord.Guild,
        server: ServerServices,
        draft: event_draft.Draft,
        *,
        start_run: str | None,
        end_run: str | None,
        by_id: int,
        by_name: str,
        anchor: datetime | None = None,
        previous: EventRow | None = None,
        conditions: Mapping[str, str] | None = None,
    ) -> EventRow:
        """Make the Discord event and its tasks, or nothing: ValidationError says what failed.
        `conditions`: the start task's (a next occurrence keeps its previous one's)."""
        problem = event_permission_problem(guild)
        if problem is not None:
            raise ValidationError(problem)
        begin = start_run.strip() if start_run and start_run.strip() else None
        finish = end_run.strip() if end_run and end_run.strip() else None
        with use_locale(server.config.locale):  # the players read these: the server's language
            begin = begin or event_draft.default_start_run(draft.name)
            finish = finish or event_draft.default_end_run(draft.name)
        self.check_commands(server, begin, finish)
        with use_locale(self.guild_locale(guild)):  # shown on the event to every member
            location = self.location(server)
        new = NewEvent(
            server.name,
            guild.id,
            draft.name,
            draft.description,
            location,
            draft.start,
            draft.end,
            begin,
            finish,
            draft.announce,
            draft.reminders,
            draft.repeat,
            anchor or (draft.start if draft.repeat else None),
            draft.timezone,
            by_id,
            by_name,
            previous.occurrence + 1 if previous else 1,
            previous.id if previous else None,
            conditions if conditions is not None else previous.conditions if previous else None,
        )
        row = await self.store.insert(new, self.clock.now())
        async with self.lock(row.id):
            try:
                made = await guild.create_scheduled_event(
                    name=draft.name,
                    description=draft.description or discord.utils.MISSING,
                    start_time=draft.start,
                    end_time=draft.end,
                    entity_type=discord.EntityType.external,
                    privacy_level=discord.PrivacyLevel.guild_only,
                    location=location,
                    reason=_("/event create by {user}", user=by_name),
                )
            except discord.HTTPException as exc:
                await self.store.delete(row.id)
                raise ValidationError(
                    _(
                        "Discord refused to create the event {name}: {error}. Nothing was made.",
                        name=repr(draft.name),
                        error=discord_error(exc),
                    )
                ) from None
            row = await self.store.update(row.id, discord_id=made.id)
            try:
                start_task, end_task = await self._schedule_pair(row, draft.start, draft.end)
            except Exception as exc:
                await self._undo_discord(row, lazy("its tasks could not be stored"))
                await self.store.delete(row.id)
                reason = str(exc) if isinstance(exc, ValidationError) else _("an internal error")
                log.warning("event %s: tasks not stored", row.id, exc_info=True)
                raise ValidationError(
                    _(
                        "The tasks of {name} could not be stored ({reason}), so its Discord event "
                        "was removed again. Nothing was made.",
                        name=repr(draft.name),
                        reason=reason,
                    )
                ) from None
            try:
                row = await self.store.update(
                    row.id, start_task=start_task, end_task=end_task, state="scheduled"
                )
            except Exception:
                log.exception("event %s: binding not stored", row.id)
                await self._cancel_tasks((start_task, end_task))
                await self._undo_discord(row, lazy("it could not be stored"))
                raise
        self.wake.set()
        return row

    async def _schedule_pair(
        self,
        row: EventRow,
        start: datetime,
        end: datetime,
        announce: tuple[int, ...] | None = None,
        revision: int = 0,
    ) -> tuple[int, int]:
        """The start task (with its countdown) and the end task; both or neither."""
        offsets = row.announce if announce is None else announce
        common: dict[str, Any] = {
            "server": row.server,
            "by_id": row.created_by_id,
            "by_name": row.created_by_name,
        }
        start_task = await self.tasks.schedule(
            task_id=event_draft.task_id(row.name, row.id, "start", revision),
            command=row.start_run,
            due=start,
            announce=offsets,
            conditions=row.conditions,
            **common,
        )
        try:
            end_task = await self.tasks.schedule(
                task_id=event_draft.task_id(row.name, row.id, "end", revision),
                command=row.end_run,
                due=end,
                announce=(),
                **common,
            )
        except BaseException:
            await self._cancel_tasks((start_task,))
            raise
        return start_task, end_task

    async def _cancel_tasks(self, tasks: tuple[int | None, ...]) -> list[Lazy]:
        """Cancel each; the ones that could not be cancelled, as sentences (said later, maybe in
        an alert channel's language)."""
        failed: list[Lazy] = []
        for task in tasks:
            if task is None:
                continue
            try:
                await self.tasks.cancel(task)
            except Exception as exc:
                log.exception("cancelling task %s failed", task)
                failed.append(lazy("task #{task}: {error}", task=task, error=exc))
        return failed

    async def _undo_discord(self, row: EventRow, why: Lazy) -> None:
        if row.discord_id is None:
            return
        try:
            await self.bot.http.delete_scheduled_event(
                row.guild_id, row.discord_id, reason=str(why)
            )
        except discord.NotFound:
            return
        except discord.HTTPException as exc:
            await self.alert(
                row,
                lazy(
                    "{why}, and removing its Discord event failed too ({error}): delete the "
                    "event in Discord by hand.",
                    why=why,
                    error=discord_error(exc),
                ),
            )

    async def recover(self) -> int:
        """Undo every create the bot died in the middle of: its tasks (found by their ids) are
        cancelled, its Discord event deleted, its row removed. The number undone."""
        undone = 0
        for row in await self.store.in_states(("creating",)):
            for role in ("start", "end"):
                for revision in range(row.revision + 1):
                    name = event_draft.task_id(row.name, row.id, role, revision)
                    task = await self.tasks.find(row.server, name)
                    if task is not None:
                        await self._cancel_tasks((task,))
            await self._undo_discord(row, lazy("the bot stopped while making it"))
            await self.store.delete(row.id)
            log.warning("event %s (%s): a create cut short was undone", row.id, row.name)
            undone += 1
        return undone

    # -- edit and cancel from the bot's side ------------------------------------------------------

    async def edit(
        self,
        row: EventRow,
        *,
        name: str | None,
        description: str | None,
        start: str | None,
        end: str | None,
    ) -> tuple[EventRow, list[Lazy]]:
        """Change the Discord event and move the tasks, or change nothing."""
        async with self.lock(row.id):
            current = await self.store.get(row.id)
            if current is None or current.state != "scheduled":
                state = event_state(current.state if current else "gone")
                raise ValidationError(
                    _(
                        "{name} is {state}: only an event that has not started can be edited.",
                        name=repr(row.name),
                        state=state,
                    )
                )
            row = current
            now = self.clock.now()
            tz = parse_timezone(row.timezone)
            title = event_draft.check_name(name) if name is not None else row.name
            text = event_draft.check_description(description) if description is not None else None
            begin = event_draft.whole_second(parse_when(start, now, tz)) if start else row.start
            length = row.end - row.start
            finish = event_draft.read_end(end, begin, now, row.timezone) if end else begin + length
            finish = event_draft.whole_second(finish)
            if not end and finish <= begin:
                finish = begin + event_draft.DEFAULT_LENGTH
            moved = (
                abs((begin - row.start).total_seconds()) >= MOVE_TOLERANCE
                or abs((finish - row.end).total_seconds()) >= MOVE_TOLERANCE
            )
            if moved:
                event_draft.check_offsets(row.announce, "announce", begin, now)
                event_draft.check_offsets(row.reminders, "reminder", begin, now)
            changes: dict[str, Any] = {}
            if title != row.name:
                changes["name"] = title
            if description is not None:
                changes["description"] = text or ""
            if moved:
                changes["scheduled_start_time"] = begin.isoformat()
                changes["scheduled_end_time"] = finish.isoformat()
            if not changes:
                raise ValidationError(
                    _("Nothing to change: give a new name, description, start or end.")
                )
            new_tasks: tuple[int, int] | None = None
            if moved:  # the new tasks first: if Discord refuses, they go and the old ones stay
                new_tasks = await self._schedule_pair(row, begin, finish, None, row.revision + 1)
            assert row.discord_id is not None
            try:
                await self.bot.http.edit_scheduled_event(
                    row.guild_id, row.discord_id, reason=_("/event edit"), **changes
                )
            except discord.HTTPException as exc:
                if new_tasks is not None:
                    await self._cancel_tasks(new_tasks)
                raise ValidationError(
                    _(
                        "Discord refused the change to {name}: {error}. Nothing was changed.",
                        name=repr(row.name),
                        error=discord_error(exc),
                    )
                ) from None
            notes: list[Lazy] = []
            update: dict[str, Any] = {"name": title}
            if description is not None:
                update["description"] = text
            if new_tasks is not None:
                notes = await self._cancel_tasks((row.start_task, row.end_task))
                update.update(
                    start=begin,
                    end=finish,
                    start_task=new_tasks[0],
                    end_task=new_tasks[1],
                    reminders_sent=(),
                    revision=row.revision + 1,
                )
            row = await self.store.update(row.id, **update)
        self.wake.set()
        return row, notes

    async def cancel(self, row: EventRow, *, by_name: str) -> EventRow:
        """Cancel the Discord event (delete it) and its tasks; if Discord refuses, keep both."""
        async with self.lock(row.id):
            current = await self.store.get(row.id)
            if current is None or current.state not in LIVE_STATES:
                state = event_state(current.state if current else "gone")
                raise ValidationError(
                    _("{name} is already {state}.", name=repr(row.name), state=state)
                )
            row = current
            if row.discord_id is not None:
                try:
                    await self.bot.http.delete_scheduled_event(
                        row.guild_id,
                        row.discord_id,
                        reason=_("/event cancel by {user}", user=by_name),
                    )
                except discord.NotFound:
                    pass  # already gone in Discord: the tasks go too
                except discord.HTTPException as exc:
                    raise ValidationError(
                        _(
                            "Discord refused to delete {name}: {error}. Its tasks were kept, so "
                            "the two still match.",
                            name=repr(row.name),
                            error=discord_error(exc),
                        )
                    ) from None
            failed = await self._cancel_tasks(row.tasks)
            row = await self.store.update(row.id, state="cancelled")
        if failed:
            await self.alert(
                row,
                lazy(
                    "it was cancelled, but some tasks could not be: {tasks}", tasks=_joined(failed)
                ),
            )
        self.wake.set()
        return row

    # -- Discord's side: gateway events -----------------------------------------------------------

    async def discord_updated(self, event: discord.ScheduledEvent) -> None:
        """The event changed in Discord: cancelled there cancels the tasks; moved moves them."""
        row = await self.store.by_discord(event.id)
        if row is None:
            return
        async with self.lock(row.id):
            row = await self.store.get(row.id) or row
            if row.state not in LIVE_STATES:
                return
            if event.status in (discord.EventStatus.cancelled, discord.EventStatus.ended):
                if event.status is discord.EventStatus.cancelled:
                    await self._cancelled_in_discord(
                        row,
                        lazy("it was cancelled in Discord, so its in-game tasks were cancelled."),
                    )
                elif row.state == "scheduled":  # ended by hand before it started: nothing runs
                    await self._cancelled_in_discord(
                        row,
                        lazy(
                            "it was ended before its start in Discord, so its in-game tasks "
                            "were cancelled."
                        ),
                    )
                return
            await self._follow_move(row, event)
        self.wake.set()

    async def discord_deleted(self, event: discord.ScheduledEvent) -> None:
        row = await self.store.by_discord(event.id)
        if row is None:
            return
        async with self.lock(row.id):
            row = await self.store.get(row.id) or row
            if row.state in LIVE_STATES:
                await self._cancelled_in_discord(
                    row, lazy("it was deleted in Discord, so its in-game tasks were cancelled.")
                )
        self.wake.set()

    async def gone_from_discord(self, row: EventRow) -> EventRow:
        """Discord answered 404 Unknown Guild Scheduled Event for a bound event: it was deleted
        there while the bot did not hear it (down, or a local Discord that forgot it), which is
        the delete the README promises to follow: its tasks are cancelled, one notice says so.
        The caller holds the row's lock."""
        if row.state in LIVE_STATES:
            await self._cancelled_in_discord(
                row, lazy("it was deleted in Discord, so its in-game tasks were cancelled.")
            )
        self.wake.set()
        return await self.store.get(row.id) or row

    async def _cancelled_in_discord(self, row: EventRow, text: Lazy) -> None:
        pending = (row.start_task, row.end_task) if row.state == "scheduled" else (row.end_task,)
        failed = await self._cancel_tasks(pending)
        await self.store.update(row.id, state="cancelled")
        said: list[Text] = [text]
        if failed:
            said.append(lazy("These could not be: {tasks}", tasks=_joined(failed)))
        await self.notice(row, said, problem=bool(failed))

    async def _follow_move(self, row: EventRow, event: discord.ScheduledEvent) -> None:
        begin = event_draft.whole_second(event.start_time)
        finish = event_draft.whole_second(event.end_time or begin + (row.end - row.start))
        moved_start = abs((begin - row.start).total_seconds()) >= MOVE_TOLERANCE
        moved_end = abs((finish - row.end).total_seconds()) >= MOVE_TOLERANCE
        renamed = event.name != row.name
        if not (moved_start or moved_end):
            if renamed:
                await self.store.update(row.id, name=event.name)
            return
        now = self.clock.now()
        if row.state == "active" or begin <= now:  # started: only the end can still move
            begin, moved_start = row.start, False
        until = (begin - now).total_seconds()
        announce = tuple(o for o in row.announce if o <= until)
        try:
            if moved_start:
                start_task, end_task = await self._schedule_pair(
                    row, begin, finish, announce, row.revision + 1
                )
                old: tuple[int | None, ...] = (row.start_task, row.end_task)
            else:
                end_task = await self.tasks.schedule(
                    server=row.server,
                    task_id=event_draft.task_id(row.name, row.id, "end", row.revision + 1),
                    command=row.end_run,
                    due=finish,
                    announce=(),
                    by_id=row.created_by_id,
                    by_name=row.created_by_name,
                )
                start_task, old = row.start_task or 0, (row.end_task,)
        except Exception as exc:
            log.exception("event %s: moving the tasks failed", row.id)
            await self.alert(
                row,
                lazy(
                    "it was moved in Discord to {start}, but its tasks could not be moved "
                    "({error}): they still run at the old times.",
                    start=stamp(begin),
                    error=exc,
                ),
            )
            return
        failed = await self._cancel_tasks(old)
        sent = tuple(o for o in row.reminders_sent if not moved_start)
        await self.store.update(
            row.id,
            start=begin,
            end=finish,
            start_task=start_task or None,
            end_task=end_task,
            name=event.name,
            reminders_sent=sent,
            revision=row.revision + 1,
        )
        said: list[Text] = [
            lazy(
                "it was moved in Discord: the tasks now run at {start} (start) and {end} (end).",
                start=stamp(begin),
                end=stamp(finish),
            )
        ]
        if len(announce) < len(row.announce):
            said.append(lazy("Countdowns longer than the time left were dropped."))
        if failed:
            said.append(
                lazy("The old tasks could not all be cancelled: {tasks}", tasks=_joined(failed))
            )
        await self.notice(row, said, problem=bool(failed))

    async def interested(
        self, event: discord.ScheduledEvent, user: discord.User, added: bool
    ) -> None:
        row = await self.store.by_discord(event.id)
        if row is None:
            return
        async with self.lock(row.id):
            row = await self.store.get(row.id) or row
            count = max(0, row.interested + (1 if added else -1))
            await self.store.update(row.id, interested=count)
        role = self.bot.settings.discord_event_role_id
        if role is not None and row.state in LIVE_STATES:
            call: Callable[..., Awaitable[Any]] = (
                self.bot.http.add_role if added else self.bot.http.remove_role
            )
            try:
                await call(
                    row.guild_id, user.id, role, reason=_("interested in {name}", name=row.name)
                )
            except discord.HTTPException as exc:
                log.warning("event %s: role for %s not changed: %s", row.id, user.id, exc)

    # -- telling people -------------------------------------------------------------------------

    def _channel(self, row: EventRow) -> int | None:
        server = self.bot.services.servers.get(row.server)
        own = server.config.alert_channel_id if server is not None else None
        return own or self.bot.settings.alert_channel_id

    def channel_locale(self, row: EventRow, channel: int | None) -> str:
        """The language of what is posted about an event: DOOM_LOCALE, else the guild's."""
        if channel is not None:
            return self.bot.channel_locale(channel)
        return self.guild_locale(self.bot.get_guild(row.guild_id))

    async def alert(self, row: EventRow, text: Text | list[Text]) -> None:
        """A problem with an event, in the alert channel, naming the event."""
        await self.notice(row, text, problem=True)

    async def notice(
        self, row: EventRow, text: Text | list[Text], *, problem: bool = False
    ) -> None:
        """Post about an event; lazy texts are said in the alert channel's language."""
        channel = self._channel(row)
        parts = text if isinstance(text, list) else [text]
        with use_locale(self.channel_locale(row, channel)):
            body = _(
                "Event **{name}** (#{id} on {server}): {text}",
                name=row.name,
                id=row.id,
                server=row.server,
                text=" ".join(str(p) for p in parts),
            )
            title = _("Event problem") if problem else _("Event changed")
        if problem:
            self.alerts.append(body)
        log.log(logging.WARNING if problem else logging.INFO, "%s", body)
        if channel is None:
            return
        embed = discord.Embed(
            title=title, description=body[:4096], colour=0xED4245 if problem else 0x5865F2
        )
        await self.bot.post(channel, embed=embed)


def _joined(items: list[Lazy]) -> Joined:
    return Joined(items, "; ")
