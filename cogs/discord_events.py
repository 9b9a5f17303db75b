"""`/event create|edit|cancel|list|show`: a Discord scheduled event and its in-game tasks as one.

The face only: options are read by :mod:`bot.calendar.event_draft`, both halves are made, moved and
cancelled by :class:`bot.discord.guildevents.binding.GuildEvents`, and the gateway's scheduled-event
events (moves, cancels and Interested clicks in Discord's own UI) are handed to it here.
"""

from __future__ import annotations

__all__ = ["DiscordEventsCog", "setup"]

import logging
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot import errors
from bot.discord.guildevents.binding import GuildEvents
from bot.discord.guildevents.event_tasks import EventTasks, SchedulerTasks, TaskStatus
from bot.discord.guildevents.timers import EventTimers
from bot.discord.slash import fit
from bot.discord.slash.cog_helpers import AFTER_WAIT, IF_NOT, server_autocomplete
from bot.discord.slash.permissions import is_moderator
from bot.i18n import _, ngettext
from bot.i18n.formats import stamp, stamp_with_distance
from bot.i18n.words import event_state, run_outcome, schedule_state
from bot.minecraft.task_fields import MAX_REQUIRE, MAX_TIME_TEXT
from bot.operations import discord_events
from bot.store.guild_events import LIVE_STATES, EventRow, GuildEventStore
from bot.times.when import human

if TYPE_CHECKING:
    from bot.discord.app import DoomBot

log = logging.getLogger(__name__)

Interaction = discord.Interaction["DoomBot"]
MAX_LIST = 15


class _NoScheduler:
    """Stands in when the wall-clock scheduler is not running: every event is refused with a
    sentence, nothing is made."""

    async def schedule(self, **request: object) -> int:
        raise errors.ValidationError(
            _(
                "Wall-clock schedules are not running in this bot, so events cannot get their "
                "in-game tasks."
            )
        )

    async def cancel(self, task: int) -> None:
        return None

    async def status(self, task: int) -> TaskStatus | None:
        return None

    async def find(self, server: str, task_id: str) -> int | None:
        return None


def _outcome(status: TaskStatus | None) -> str:
    if status is None:
        return _("unknown")
    state = schedule_state(status.state)
    if status.last_outcome:
        return _(
            "{state}, last run: {outcome}", state=state, outcome=run_outcome(status.last_outcome)
        )
    return state


class DiscordEventsCog(commands.Cog, name="DiscordEvents"):
    """Discord scheduled events bound to wall-clock tasks."""

    event = app_commands.Group(
        name="event",
        description="Discord events with their in-game tasks.",
        guild_only=True,
        allowed_contexts=app_commands.AppCommandContext(guild=True),
    )

    def __init__(self, bot: DoomBot) -> None:
        self.bot = bot
        services = bot.services
        scheduler = getattr(services, "scheduler", None)
        tasks: EventTasks = SchedulerTasks(scheduler) if scheduler is not None else _NoScheduler()
        clock = getattr(scheduler, "clock", None)
        if clock is None:
            from bot.times.clock import SystemClock

            clock = SystemClock()
        default_tz = getattr(scheduler, "default_timezone", "UTC")
        self.events = GuildEvents(
            bot, GuildEventStore(services.db), tasks, clock, default_timezone=default_tz
        )
        self.timers = EventTimers(self.events)

    async def cog_load(self) -> None:
        await self.events.recover()  # never an event without its tasks, even after a crash
        self.timers.start()
        self.bot.ops.guild_events = self.events  # every face's /event operations use it

    async def cog_unload(self) -> None:
        self.bot.ops.guild_events = None
        await self.timers.stop()

    # -- gateway ----------------------------------------------------------------------------------

    @commands.Cog.listener()
    async def on_scheduled_event_update(
        self, before: discord.ScheduledEvent, after: discord.ScheduledEvent
    ) -> None:
        await self.events.discord_updated(after)

    @commands.Cog.listener()
    async def on_scheduled_event_delete(self, event: discord.ScheduledEvent) -> None:
        await self.events.discord_deleted(event)

    @commands.Cog.listener()
    async def on_scheduled_event_user_add(
        self, event: discord.ScheduledEvent, user: discord.User
    ) -> None:
        await self.events.interested(event, user, True)

    @commands.Cog.listener()
    async def on_scheduled_event_user_remove(
        self, event: discord.ScheduledEvent, user: discord.User
    ) -> None:
        await self.events.interested(event, user, False)

    # -- helpers ----------------------------------------------------------------------------------

    @is_moderator()  # discord.py runs an autocomplete callback's own checks
    async def event_autocomplete(
        self, interaction: Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        low = current.lower().removeprefix("#")
        rows = await self.events.store.in_states(LIVE_STATES)
        found = [r for r in rows if low in r.name.lower() or low == str(r.id)]
        return [
            app_commands.Choice(name=f"#{r.id} {r.name}"[:100], value=str(r.id)) for r in found[:25]
        ]

    async def _embed(self, row: EventRow) -> discord.Embed:
        embed = discord.Embed(title=f"#{row.id} {row.name}"[:256], colour=0x5865F2)
        if row.description:
            embed.description = row.description[:1000]
        embed.add_field(name=_("starts"), value=stamp_with_distance(row.start))
        embed.add_field(name=_("ends"), value=stamp(row.end))
        embed.add_field(name=_("state"), value=event_state(row.state))
        embed.add_field(name=_("interested"), value=str(row.interested))
        embed.add_field(name=_("server"), value=f"{row.server} ({row.location})")
        if row.repeat:
            repeats = _("`{rule}` (occurrence {n})", rule=row.repeat, n=row.occurrence)
            embed.add_field(name=_("repeats"), value=repeats)
        outcomes = await self.events.outcomes(row)
        for role, title, command in (
            ("start", _("start task"), row.start_run),
            ("end", _("end task"), row.end_run),
        ):
            shown = command if len(command) <= 200 else command[:199] + "…"
            embed.add_field(
                name=title,
                value=f"`{shown.replace('`', chr(39))}`\n{_outcome(outcomes.get(role))}"[:1024],
                inline=False,
            )
        offsets = ", ".join(human(o) for o in row.announce) or _("none")
        reminders = ", ".join(human(o) for o in row.reminders) or _("none")
        embed.set_footer(
            text=_(
                "countdown {offsets}; reminders {reminders}", offsets=offsets, reminders=reminders
            )
        )
        return embed

    # -- commands ---------------------------------------------------------------------------------

    @event.command(name="create", description="A Discord event plus its in-game start/end tasks.")
    @app_commands.describe(
        name="The event's name (up to 100 characters).",
        start="When it starts, as /schedule when: 20:00, fri 20:00, in 90m, <t:…>.",
        end="When it ends (a time, or a length such as 2h); default start + 1 h.",
        description="What it is about (up to 1,000 characters).",
        server="Which Minecraft server.",
        start_run="The command run at the start (a function call for several).",
        end_run="The command run at the end.",
        announce="In-game countdown before the start, e.g. 10m,1m (default), or none.",
        reminders="Discord reminders to interested members before the start, e.g. 1h,5m.",
        repeat="Repeat like /schedule repeat: 7d, or a cron expression such as 0 20 * * fri.",
        timezone="IANA time zone for the times, e.g. Europe/Berlin.",
        require="Run the start task only if: players>=N, players<N, empty or online:<player>.",
        if_not="When `require` is not met: skip the start task (default) or wait for it.",
        max_wait="With if_not wait: how long to wait at most, e.g. 10m.",
        after_wait="With if_not wait: run or skip (default) when the wait is over.",
    )
    @app_commands.choices(if_not=IF_NOT, after_wait=AFTER_WAIT)
    @app_commands.autocomplete(server=server_autocomplete)
    @is_moderator()
    async def create(
        self,
        interaction: Interaction,
        name: str,
        start: str,
        end: str | None = None,
        description: str | None = None,
        server: str | None = None,
        start_run: str | None = None,
        end_run: str | None = None,
        announce: str | None = None,
        reminders: str | None = None,
        repeat: str | None = None,
        timezone: str | None = None,
        require: app_commands.Range[str, 1, MAX_REQUIRE] | None = None,
        if_not: str | None = None,
        max_wait: app_commands.Range[str, 1, MAX_TIME_TEXT] | None = None,
        after_wait: str | None = None,
    ) -> None:
        request = discord_events.EventRequest(
            name=name,
            start=start,
            end=end,
            description=description,
            server=server,
            start_run=start_run,
            end_run=end_run,
            announce=announce,
            reminders=reminders,
            repeat=repeat,
            timezone=timezone,
            require=require,
            if_not=if_not,  # type: ignore[arg-type]
            max_wait=max_wait,
            after_wait=after_wait,  # type: ignore[arg-type]
        )
        caller = self.bot.caller(interaction)
        discord_events.check(self.bot.ops, caller, request)  # before deferring: said at once
        await interaction.response.defer(ephemeral=True, thinking=True)
        made = await discord_events.create(self.bot.ops, caller, request)
        await interaction.followup.send(
            made.text, embed=await self._embed(made.row), ephemeral=True
        )

    @event.command(name="edit", description="Change an event; its tasks move with it.")
    @app_commands.describe(
        event="The event (its id or name).",
        name="A new name.",
        start="A new start (as /schedule when:).",
        end="A new end, or a length such as 2h.",
        description="A new description.",
    )
    @is_moderator()
    async def edit(
        self,
        interaction: Interaction,
        event: str,
        name: str | None = None,
        start: str | None = None,
        end: str | None = None,
        description: str | None = None,
    ) -> None:
        caller = self.bot.caller(interaction)
        await discord_events.find(self.bot.ops, caller, discord_events.EventRef(event=event))
        await interaction.response.defer(ephemeral=True, thinking=True)
        request = discord_events.EventEdit(
            event=event, name=name, start=start, end=end, description=description
        )
        changed = await discord_events.edit(self.bot.ops, caller, request)
        await interaction.followup.send(fit.content(changed.text), ephemeral=True)

    @event.command(name="cancel", description="Cancel an event in Discord and its tasks.")
    @app_commands.describe(event="The event (its id or name).")
    @is_moderator()
    async def cancel(self, interaction: Interaction, event: str) -> None:
        caller = self.bot.caller(interaction)
        request = discord_events.EventRef(event=event)
        await discord_events.find(self.bot.ops, caller, request)  # an unknown one said at once
        await interaction.response.defer(ephemeral=True, thinking=True)
        cancelled = await discord_events.cancel(self.bot.ops, caller, request)
        await interaction.followup.send(cancelled.text, ephemeral=True)

    @event.command(name="list", description="Planned and running events, with interested counts.")
    @app_commands.describe(server="Only this Minecraft server.")
    @app_commands.autocomplete(server=server_autocomplete)
    @is_moderator()
    async def list_(self, interaction: Interaction, server: str | None = None) -> None:
        if server:
            self.bot.server(server)  # an unknown server is said before deferring
        await interaction.response.defer(ephemeral=True, thinking=True)
        found = await discord_events.listed(
            self.bot.ops, self.bot.caller(interaction), discord_events.EventList(server=server)
        )
        rows, note = found.rows, found.note
        title = ngettext("{n} event", "{n} events", len(rows))
        embed = discord.Embed(title=title, colour=0x5865F2)
        lines = [
            _(
                "**#{id} {name}** {start} ({relative}), {state}, {interested} interested, on "
                "{server}",
                id=r.id,
                name=r.name,
                start=stamp(r.start),
                relative=stamp(r.start, "R"),
                state=event_state(r.state),
                interested=r.interested,
                server=r.server,
            )
            for r in rows[:MAX_LIST]
        ]
        if len(rows) > MAX_LIST:
            lines.append(_("... and {n} more", n=len(rows) - MAX_LIST))
        embed.description = "\n".join(lines)[:4096] or _("No events planned.")
        if note:
            embed.set_footer(text=note)
        await interaction.followup.send(embed=embed, ephemeral=True)

    @event.command(name="show", description="One event: times, interested, tasks and outcomes.")
    @app_commands.describe(event="The event (its id or name).")
    @is_moderator()
    async def show(self, interaction: Interaction, event: str) -> None:
        row = await self.events.find(event)
        await interaction.response.defer(ephemeral=True, thinking=True)
        note = await self.events.refresh_counts(interaction.guild)
        row = await self.events.store.get(row.id) or row
        embed = await self._embed(row)
        if note:
            embed.set_footer(text=f"{embed.footer.text}. {note}")
        await interaction.followup.send(embed=embed, ephemeral=True)

    for _command in (edit, cancel, show):
        _command.autocomplete("event")(event_autocomplete)
    del _command


async def setup(bot: DoomBot) -> None:
    await bot.add_cog(DiscordEventsCog(bot))
