"""What happens to an event on the clock, besides its in-game tasks (the scheduler runs those):
reminders to the members who pressed Interested, the Discord event set active at its start and
completed at its end, the next occurrence of a repeating event made when one ends, and a look at
the outcome of the start and end tasks shortly after each (an alert naming the event if one failed).

One asyncio task sleeps on the injected clock until the earliest of these; tests move a manual
clock and call :meth:`EventTimers.run_due`.
"""

from __future__ import annotations

__all__ = ["CHECK_DELAY", "MAX_MESSAGE", "EventTimers", "mention_chunks"]

import asyncio
import logging
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

import discord

from bot.aio import cancel_and_wait
from bot.calendar.event_draft import Draft, next_start
from bot.discord.guildevents.binding import GuildEvents, discord_error
from bot.discord.guildevents.event_tasks import task_failed
from bot.errors import ValidationError
from bot.i18n import _, lazy, use_locale
from bot.i18n.formats import stamp
from bot.store.guild_events import EventRow

if TYPE_CHECKING:
    from bot.discord.app import DoomBot

log = logging.getLogger(__name__)

CHECK_DELAY = 30.0  # seconds after a start/end before its task's outcome is looked at
IDLE_LOOK = 1.0  # seconds between looks at whether this process holds the gateway
REMINDER_GRACE = 300.0  # a reminder more than this late (bot was down) is not sent
MAX_MESSAGE = 2000  # Discord's limit on a message's content


def mention_chunks(head: str, mentions: list[str]) -> list[str]:
    """`head` then the mentions, split into messages of at most 2,000 characters."""
    out: list[str] = []
    current = head
    for mention in mentions:
        if len(current) + 1 + len(mention) > MAX_MESSAGE:
            out.append(current)
            current = mention
        else:
            current = f"{current} {mention}" if current else mention
    out.append(current)
    return out


class EventTimers:
    def __init__(self, events: GuildEvents, *, check_delay: float = CHECK_DELAY) -> None:
        self.events = events
        self.bot: DoomBot = events.bot
        self.check_delay = timedelta(seconds=check_delay)
        self._pass = asyncio.Lock()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._loop(), name="guild-event-timers")

    async def stop(self) -> None:
        if self._task is not None:
            await cancel_and_wait(self._task)
            self._task = None

    async def _loop(self) -> None:
        while True:
            self.events.wake.clear()
            if not self.bot.acting:
                # another process holds Discord's gateway and runs these (one reminder, one
                # next occurrence); look again soon: the gateway may come to this one
                await self.events.clock.wait(
                    self.events.clock.now() + timedelta(seconds=IDLE_LOOK), self.events.wake
                )
                continue
            try:
                deadline = await self.run_due()
            except Exception:  # one bad pass must not stop every later reminder
                log.exception("event timers failed; trying again in a minute")
                deadline = self.events.clock.now() + timedelta(minutes=1)
            await self.events.clock.wait(deadline, self.events.wake)

    async def run_due(self) -> datetime | None:
        """Do everything that is due now; the time of the next thing to do."""
        async with self._pass:
            earliest: datetime | None = None
            for row in await self.events.store.pending():
                nxt = await self._step(row)
                if nxt is not None and (earliest is None or nxt < earliest):
                    earliest = nxt
            return earliest

    async def _step(self, row: EventRow) -> datetime | None:
        # nobody asked: what is said (reminders, alerts, the next occurrence's location) is in
        # the alert channel's language, DOOM_LOCALE else the guild's
        with use_locale(self.events.channel_locale(row, self.events.channel(row))):
            return await self._step_in_locale(row)

    async def _step_in_locale(self, row: EventRow) -> datetime | None:
        now = self.events.clock.now()
        upcoming: list[datetime] = []
        async with self.events.lock(row.id):
            fresh = await self.events.store.get(row.id)
            if fresh is None or fresh.state in ("creating", "cancelled"):
                return None
            row = fresh
            if row.state == "scheduled":
                for offset in row.reminders:
                    if offset in row.reminders_sent:
                        continue
                    at = row.start - timedelta(seconds=offset)
                    if at > now:
                        upcoming.append(at)
                        continue
                    row = await self._remind(row, offset, late=(now - at).total_seconds())
                    if row.state == "cancelled":  # gone from Discord: nothing more to do
                        return None
                if row.start <= now:
                    row = await self._started(row)
                    if row.state == "cancelled":
                        return None
                else:
                    upcoming.append(row.start)
            for role, due in (("start", row.start), ("end", row.end)):
                if role in row.checked:
                    continue
                at = due + self.check_delay
                if at <= now:
                    row = await self._check(row, role)
                else:
                    upcoming.append(at)
            if row.state == "active":
                if row.end <= now:
                    row = await self._ended(row)
                else:
                    upcoming.append(row.end)
        return min(upcoming) if upcoming else None

    # -- the things that happen -------------------------------------------------------------------

    async def _remind(self, row: EventRow, offset: int, *, late: float) -> EventRow:
        row = await self.events.store.update(row.id, reminders_sent=(*row.reminders_sent, offset))
        if late > REMINDER_GRACE:
            log.info("event %s: reminder %ss skipped, %ss late", row.id, offset, int(late))
            return row
        try:
            users = await self._interested_users(row)
        except discord.NotFound:
            return await self.events.gone_from_discord(row)
        except discord.HTTPException as exc:
            await self.events.alert(
                row,
                lazy(
                    "its reminder could not read who is interested ({error}).",
                    error=discord_error(exc),
                ),
            )
            users = []
        else:
            row = await self.events.store.update(row.id, interested=len(users))
        channel = self.bot.settings.discord_event_channel_id or self.events.channel(row)
        if channel is None:
            return row
        with use_locale(self.events.channel_locale(row, channel)):
            return await self._post_reminder(row, channel, users)

    async def _post_reminder(
        self, row: EventRow, channel: int, users: list[discord.User]
    ) -> EventRow:
        head = _(
            "Reminder: **{name}** starts {relative} ({start}) at {location}.",
            name=row.name,
            relative=stamp(row.start, "R"),
            start=stamp(row.start),
            location=row.location,
        )
        role = self.bot.settings.discord_event_role_id
        allowed: discord.AllowedMentions
        if role is not None:
            for user in users:
                try:
                    await self.bot.http.add_role(
                        row.guild_id,
                        user.id,
                        role,
                        reason=_("interested in {name}", name=row.name),
                    )
                except discord.HTTPException as exc:
                    log.warning("event %s: role for %s not given: %s", row.id, user.id, exc)
            chunks = [f"{head} <@&{role}>"]
            allowed = discord.AllowedMentions(roles=[discord.Object(role)], users=False)
        else:
            if not users:
                head += " " + _("Nobody has pressed Interested yet.")
            chunks = mention_chunks(head, [u.mention for u in users])
            allowed = discord.AllowedMentions(users=list(users), roles=False)
        for content in chunks:
            await self.bot.post(channel, content=content, allowed_mentions=allowed)
        return row

    async def _interested_users(self, row: EventRow) -> list[discord.User]:
        guild = self.bot.get_guild(row.guild_id)
        if guild is None or row.discord_id is None:
            return []
        event = await guild.fetch_scheduled_event(row.discord_id, with_counts=True)
        return [user async for user in event.users()]

    async def _set_status(self, row: EventRow, status: discord.EventStatus, what: str) -> EventRow:
        if row.discord_id is None:
            return row
        try:
            await self.bot.http.edit_scheduled_event(
                row.guild_id, row.discord_id, status=status.value, reason=what
            )
        except discord.NotFound:
            if status is discord.EventStatus.active:
                return await self.events.gone_from_discord(row)
            # at its end the tasks have run: nothing is left to cancel
            log.info("event %s: gone from Discord at its end", row.id)
        except discord.HTTPException as exc:
            # an external event Discord already ended (or a moderator started by hand) refuses
            # the change; the tasks do not depend on it, so it is logged, not alerted
            log.info("event %s: Discord status %s not set: %s", row.id, status.name, exc)
        return row

    async def _started(self, row: EventRow) -> EventRow:
        row = await self.events.store.update(row.id, state="active")
        return await self._set_status(row, discord.EventStatus.active, _("the event's start time"))

    async def _ended(self, row: EventRow) -> EventRow:
        row = await self.events.store.update(row.id, state="completed")
        await self._set_status(row, discord.EventStatus.ended, _("the event's end time"))
        if row.repeat:
            await self._next_occurrence(row)
        return row

    async def _check(self, row: EventRow, role: str) -> EventRow:
        row = await self.events.store.update(row.id, checked=(*row.checked, role))
        task = row.start_task if role == "start" else row.end_task
        if task is None:
            return row
        why = task_failed(await self.events.tasks.status(task))
        if why is not None:
            text = (
                _("its start command did not run as it should: {why}.", why=why)
                if role == "start"
                else _("its end command did not run as it should: {why}.", why=why)
            )
            await self.events.alert(row, text)
        return row

    async def _next_occurrence(self, row: EventRow) -> None:
        assert row.repeat is not None
        now = self.events.clock.now()
        anchor = row.anchor or row.start
        try:
            start = next_start(row.repeat, anchor, row.timezone, max(now, row.start))
        except ValidationError as exc:
            await self.events.alert(
                row, _("its next occurrence could not be planned: {error}", error=exc)
            )
            return
        if start is None:
            await self.events.notice(row, _("its repeat rule has no further occurrence."))
            return
        until = (start - now).total_seconds()
        draft = Draft(
            row.name,
            row.description,
            start,
            start + (row.end - row.start),
            tuple(o for o in row.announce if o <= until),
            tuple(o for o in row.reminders if o <= until),
            row.repeat,
            row.timezone,
        )
        guild = self.bot.get_guild(row.guild_id)
        server = self.bot.services.servers.get(row.server)
        if guild is None or server is None:
            await self.events.alert(
                row,
                _(
                    "its next occurrence could not be made: the guild or "
                    "the server is no longer known."
                ),
            )
            return
        try:
            made = await self.events.create(
                guild,
                server,
                draft,
                start_run=row.start_run,
                end_run=row.end_run,
                by_id=row.created_by_id,
                by_name=row.created_by_name,
                anchor=anchor,
                previous=row,
            )
        except ValidationError as exc:
            await self.events.alert(
                row, _("its next occurrence could not be made: {error}", error=exc)
            )
            return
        await self.events.notice(
            made, _("occurrence {n} is planned for {start}.", n=made.occurrence, start=stamp(start))
        )
