"""Slash commands that change a server's queue: schedule, cancel, clear, pause, resume."""

from __future__ import annotations

__all__ = ["ConfirmView", "ScheduleCog", "setup"]

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot import errors
from bot.i18n import N_, _, pgettext
from bot.i18n.formats import number
from bot.minecraft.handover import pause_when_empty_seconds, players_online
from bot.slash.cog_helpers import (
    InvokerView,
    TaskId,
    audited_reply,
    deferred,
    server_command,
    task_command,
)
from bot.slash.planned_ui import planned_embed, timezone_autocomplete
from bot.store.schedules import Creator

if TYPE_CHECKING:
    from bot.app import DoomBot
    from bot.minecraft.tasks import Task
    from bot.services import ServerServices
    from bot.store.schedules import Schedule
    from bot.wallclock.scheduler import Scheduler

log = logging.getLogger(__name__)

Interaction = discord.Interaction["DoomBot"]
MAX_INT = 2**31 - 1
# the pack's unit names; "day" is a real day, "gameday" one in-game day (24000 ticks)
UNITS = [
    *(app_commands.Choice(name=n, value=n) for n in ("tick", "second", "minute", "hour", "day")),
    app_commands.Choice(name="gameday", value="game_day"),
]
DYNAMIC_PREFIX = "discord-"
RUN_HELP = "The Minecraft command to run (without the leading /)."
RunText = app_commands.Range[str, 1, 1400]
Delay = app_commands.Range[int, 0, MAX_INT]


class ConfirmView(InvokerView):
    """Confirm / Cancel that only the invoker may press; the action runs on Confirm.

    On timeout the buttons are disabled and the message says nothing was changed.
    """

    def __init__(
        self, invoker_id: int, action: Callable[[Interaction], Awaitable[str]], *, timeout: float
    ) -> None:
        super().__init__(invoker_id, timeout=timeout)
        self.action = action
        self.message: discord.Message | discord.WebhookMessage | None = None
        self.outcome: str | None = None

    @discord.ui.button(label=N_("Confirm"), style=discord.ButtonStyle.danger)
    async def confirm(self, interaction: Interaction, button: discord.ui.Button[Any]) -> None:
        self.disable_buttons()
        self.stop()
        await interaction.response.edit_message(view=self)  # acknowledge before the round trip
        self.outcome = await self.action(interaction)
        await interaction.edit_original_response(content=self.outcome, view=self)

    @discord.ui.button(label=N_("Cancel"), style=discord.ButtonStyle.secondary)
    async def cancel(self, interaction: Interaction, button: discord.ui.Button[Any]) -> None:
        self.disable_buttons()
        self.stop()
        self.outcome = _("Cancelled; nothing was changed.")
        await interaction.response.edit_message(content=self.outcome, view=self)

    async def on_timeout(self) -> None:
        self.disable_buttons()
        self.outcome = _("No answer in time; nothing was changed.")
        await self.edit_expired(self.message, content=self.outcome)


def task_embed(task: Task, server: ServerServices, *, title: str) -> discord.Embed:
    """One task as an embed: what runs, when (game tick and wall-clock ETA), how it retries."""
    embed = discord.Embed(title=title, colour=0x57F287)
    embed.add_field(name=_("id"), value=f"`{task.id}`")
    embed.add_field(name=_("server"), value=server.name)
    embed.add_field(name=_("list"), value=pgettext("slash option choice", task.list))
    embed.add_field(name=_("runs"), value=f"```\n{task.run[:1000]}\n```", inline=False)
    if task.list == "paused" and task.remaining is not None:
        embed.add_field(name=_("remaining"), value=_("{n} ticks", n=number(task.remaining)))
    else:
        eta = discord.utils.format_dt(server.pack.eta(task.due), "R")
        embed.add_field(name=_("due"), value=_("tick {tick} ({eta})", tick=task.due, eta=eta))
    if task.executor:
        who = _("player") if task.player else _("entity")
        embed.add_field(name=_("as"), value=f"{who} `{task.executor}`")
    if task.retry_left:
        embed.add_field(
            name=_("retries"),
            value=_("{n} (every {delay} t)", n=task.retry_left, delay=task.retry_delay),
        )
    if task.interval:
        embed.add_field(name=_("repeats"), value=_("every {n} ticks", n=number(task.interval)))
    return embed


class ScheduleCog(commands.Cog, name="Schedule"):
    """Commands that change the queue; every one is audited."""

    confirm_timeout: float = 60.0  # tests shorten it

    def __init__(self, bot: DoomBot) -> None:
        self.bot = bot

    async def _confirm(
        self,
        interaction: Interaction,
        prompt: str,
        action: Callable[[Interaction], Awaitable[str]],
    ) -> ConfirmView:
        view = ConfirmView(interaction.user.id, action, timeout=self.confirm_timeout)
        view.message = await interaction.followup.send(prompt, view=view, wait=True)
        return view

    # -- commands ---------------------------------------------------------------------------

    @server_command(
        "Run a command after some game time.",
        run=RUN_HELP,
        time="How long to wait, in `unit`s (leave out when you give `at`).",
        unit="The unit of `time` (default tick; gameday = 24000 ticks).",
        id="A name for the task, to cancel or pause it later (default: a generated one).",
        retry="How many times to retry when the command fails.",
        retry_delay="Ticks between retries.",
        every="Repeat every this many ticks.",
        at="Run at this absolute game tick instead of after `time`.",
        as_player="Run as this player (waits while they are offline).",
        when="Wall-clock time: 20:00, fri 20:00, tomorrow 18:30, 2026-12-05 20:00, in 90m.",
        repeat="Repeat on the wall clock: 30m, 1d, or cron such as `0 20 * * fri`.",
        timezone="IANA time zone for `when`/`repeat`, e.g. Europe/Berlin (default: the bot's).",
        announce="Countdown told to players before each run, e.g. 5m,1m,10s.",
    )
    @app_commands.choices(unit=UNITS)
    @app_commands.autocomplete(timezone=timezone_autocomplete)
    async def schedule(
        self,
        interaction: Interaction,
        run: RunText,
        time: Delay | None = None,
        unit: str = "tick",
        id: app_commands.Range[str, 1, 64] | None = None,
        retry: app_commands.Range[int, 0, 1000] = 0,
        retry_delay: app_commands.Range[int, 1, MAX_INT] = 1,
        every: app_commands.Range[int, 1, MAX_INT] | None = None,
        at: app_commands.Range[int, 0, 2**63 - 1] | None = None,
        as_player: app_commands.Range[str, 1, 16] | None = None,
        server: str | None = None,
        when: app_commands.Range[str, 1, 100] | None = None,
        repeat: app_commands.Range[str, 1, 100] | None = None,
        timezone: app_commands.Range[str, 1, 64] | None = None,
        announce: app_commands.Range[str, 1, 100] | None = None,
    ) -> None:
        target = self.bot.server(server)
        wall = {"when": when, "repeat": repeat, "timezone": timezone, "announce": announce}
        if any(v is not None for v in wall.values()):
            game = [n for n, v in (("time", time), ("every", every), ("at", at)) if v is not None]
            if game or unit != "tick":
                mixed = ", ".join(f"`{n}`" for n in (game or ["unit"]))
                given = ", ".join(f"`{n}`" for n, v in wall.items() if v is not None)
                raise errors.ValidationError(
                    _("{given} set a wall-clock time and {mixed} a game time: use one or the "
                      "other, not both.", given=given, mixed=mixed)
                )  # fmt: skip
            await self._plan(interaction, target, run, id, retry, retry_delay, as_player, wall)
            return
        if (time is None) == (at is None):
            raise errors.ValidationError(_("Give either `time` (a delay) or `at` (a game tick)."))
        request = dict(run=run, time=time, unit=unit, id=id, retry=retry, retry_delay=retry_delay,
                       every=every, at=at, as_player=as_player)  # fmt: skip
        # checked before deferring, so a typo gets its caret at once, as the only (ephemeral)
        # reply; the pack client checks again (the verdict is cached) on every other path
        target.checker.check(run)
        await interaction.response.defer(ephemeral=True, thinking=True)
        extras = retry or every is not None or at is not None or as_player is not None
        if id is None and not extras:
            new_id = await target.pack.schedule_dynamic(run, time or 0, unit, DYNAMIC_PREFIX)
            outcome = _("Scheduled `{id}` on {server}.", id=new_id, server=target.name)
            await self.bot.audit(interaction, target, "schedule", request, outcome)
            task = await target.pack.show(new_id)
        else:
            # the pack's plain schedule needs an id; a generated one keeps the request unambiguous
            task_id = id or f"{DYNAMIC_PREFIX}{interaction.id:x}"
            task = await target.pack.schedule(
                run, time or 0, unit, task_id, retry=retry, retry_delay=retry_delay,
                interval=every, at_tick=at, as_player=as_player,
            )  # fmt: skip
            outcome = _("Scheduled `{id}` on {server}.", id=task_id, server=target.name)
            await self.bot.audit(interaction, target, "schedule", request, outcome)
        note = await self._paused_note(target)
        if note:
            outcome = f"{outcome}\n{note}"
        if task is None:
            await interaction.followup.send(outcome, ephemeral=True)
        else:
            embed = task_embed(task, target, title=_("Scheduled"))
            await interaction.followup.send(outcome, embed=embed, ephemeral=True)

    async def _paused_note(self, target: ServerServices) -> str | None:
        """Why a game-time task may not run on time: nobody online on a server that pauses when
        empty (its game time stands still); None when it ticks or we cannot tell."""
        pause = pause_when_empty_seconds(target.config)
        if pause <= 0:
            return None
        try:
            online = await players_online(target.pack)
        except errors.BotError:
            return None
        if online:
            return None
        return _(
            "Note: nobody is online on {server} and it pauses when empty "
            "(pause-when-empty-seconds={pause}), so game time stands still and this task "
            "waits until a player joins. For a wall-clock time that runs anyway, use `when`.",
            server=target.name,
            pause=pause,
        )

    def _scheduler(self) -> Scheduler:
        scheduler = self.bot.services.scheduler
        if scheduler is None:
            raise errors.ValidationError(_("Wall-clock schedules are not available in this bot."))
        return scheduler

    async def _plan(
        self,
        interaction: Interaction,
        target: ServerServices,
        run: str,
        id: str | None,
        retry: int,
        retry_delay: int,
        as_player: str | None,
        wall: dict[str, str | None],
    ) -> None:
        """A wall-clock /schedule: a planned row in the bot's database, handed to the pack at
        its time. Every check runs before anything is stored or deferred."""
        scheduler = self._scheduler()
        task_id = id or f"{DYNAMIC_PREFIX}{interaction.id:x}"
        user = interaction.user
        row = await scheduler.create(
            server=target.name, command=run, task_id=task_id, retry=retry,
            retry_delay=retry_delay, as_player=as_player, created_by=Creator(user.id, str(user)),
            when=wall["when"], repeat=wall["repeat"], timezone=wall["timezone"],
            announce=wall["announce"],
        )  # fmt: skip
        assert row.next_due is not None
        outcome = _(
            "Planned `{id}` on {server} for {when} ({relative}).",
            id=task_id,
            server=target.name,
            when=f"<t:{int(row.next_due.timestamp())}:F>",
            relative=f"<t:{int(row.next_due.timestamp())}:R>",
        )
        request = {"run": run, "id": task_id, "retry": retry, "retry_delay": retry_delay,
                   "as_player": as_player, **wall}  # fmt: skip
        embed = planned_embed(row, scheduler.upcoming(row), title=_("Planned"))
        await interaction.response.send_message(outcome, embed=embed, ephemeral=True)
        await self.bot.audit(interaction, target, "schedule", request, outcome)

    async def _planned(self, target: ServerServices, id: str) -> Schedule | None:
        scheduler = self.bot.services.scheduler
        return None if scheduler is None else await scheduler.find(target.name, id)

    @server_command(
        "Run a command after some game time, under a new unique id.",
        run=RUN_HELP,
        time="How long to wait, in `unit`s.",
        unit="The unit of `time` (default tick).",
        prefix="The start of the generated id.",
    )
    @app_commands.choices(unit=UNITS)
    async def schedule_dynamic(
        self,
        interaction: Interaction,
        run: RunText,
        time: Delay,
        unit: str = "tick",
        prefix: app_commands.Range[str, 1, 32] = DYNAMIC_PREFIX,
        server: str | None = None,
    ) -> None:
        target = self.bot.server(server)
        target.checker.check(run)  # before deferring: the caret is the only reply
        await interaction.response.defer(ephemeral=True, thinking=True)
        new_id = await target.pack.schedule_dynamic(run, time, unit, prefix)
        outcome = _("Scheduled `{id}` on {server}.", id=new_id, server=target.name)
        request = {"run": run, "time": time, "unit": unit, "prefix": prefix}
        await audited_reply(interaction, target, "schedule_dynamic", request, outcome)

    @task_command("Cancel the next task with this id.")
    async def cancel(self, interaction: Interaction, id: TaskId, server: str | None = None) -> None:
        target = await deferred(interaction, server)
        row = await self._planned(target, id)
        if row is not None:
            await self._scheduler().cancel(row.id)
            outcome = _(
                "Cancelled the planned schedule `{id}` on {server}.", id=id, server=target.name
            )
        else:
            done = await target.pack.cancel_one(id)
            outcome = (
                _("Cancelled `{id}`.", id=id)
                if done
                else _("No task `{id}` on {server}.", id=id, server=target.name)
            )
        await audited_reply(interaction, target, "cancel", {"id": id}, outcome)

    @task_command("Cancel every task with this id (asks first).", id_help="The tasks' id.")
    async def cancel_all(
        self, interaction: Interaction, id: TaskId, server: str | None = None
    ) -> None:
        target = await deferred(interaction, server, ephemeral=False)
        count = await target.pack.count(id)
        planned = await self._planned(target, id)
        if count == 0 and planned is None:
            await interaction.followup.send(
                _("No task `{id}` on {server}.", id=id, server=target.name)
            )
            return

        async def action(pressed: Interaction) -> str:
            removed = await target.pack.cancel_all(id)
            row = await self._planned(target, id)
            if row is not None:
                await self._scheduler().cancel(row.id)
                outcome = _(
                    "Cancelled {n} task(s) `{id}` and its planned schedule on {server}.",
                    n=removed,
                    id=id,
                    server=target.name,
                )
            else:
                outcome = _(
                    "Cancelled {n} task(s) `{id}` on {server}.",
                    n=removed,
                    id=id,
                    server=target.name,
                )
            await self.bot.audit(pressed, target, "cancel_all", {"id": id}, outcome)
            return outcome

        await self._confirm(
            interaction,
            _(
                "Cancel all {n} task(s) `{id}` and its planned schedule on {server}?",
                n=count,
                id=id,
                server=target.name,
            )
            if planned is not None
            else _(
                "Cancel all {n} task(s) `{id}` on {server}?", n=count, id=id, server=target.name
            ),
            action,
        )

    @server_command("Remove every task from a server (asks first).")
    async def clear(self, interaction: Interaction, server: str | None = None) -> None:
        target = await deferred(interaction, server, ephemeral=False)

        async def action(pressed: Interaction) -> str:
            removed = await target.pack.clear()
            outcome = _("Removed {n} task(s) from {server}.", n=removed, server=target.name)
            await self.bot.audit(pressed, target, "clear", {}, outcome)
            return outcome

        await self._confirm(
            interaction,
            _("Remove every scheduled task on {server}? This cannot be undone.",
              server=target.name),
            action,
        )  # fmt: skip

    @task_command("Pause a task: its remaining delay is kept.")
    async def pause(self, interaction: Interaction, id: TaskId, server: str | None = None) -> None:
        target = await deferred(interaction, server)
        row = await self._planned(target, id)
        if row is not None:
            await self._scheduler().pause(row.id)
            outcome = _("Paused the planned schedule `{id}`: it does not run until resumed.", id=id)
        else:
            done = await target.pack.pause(id)
            outcome = (
                _("Paused `{id}`.", id=id)
                if done
                else _("No queued task `{id}` on {server}.", id=id, server=target.name)
            )
        await audited_reply(interaction, target, "pause", {"id": id}, outcome)

    @task_command("Resume a paused task.")
    async def resume(self, interaction: Interaction, id: TaskId, server: str | None = None) -> None:
        target = await deferred(interaction, server)
        row = await self._planned(target, id)
        if row is not None:
            resumed = await self._scheduler().resume(row.id)
            due = resumed.next_due
            if due is not None:
                outcome = _(
                    "Resumed the planned schedule `{id}`: next run {when}.",
                    id=id,
                    when=f"<t:{int(due.timestamp())}:F>",
                )
            else:
                outcome = _("Resumed the planned schedule `{id}`.", id=id)
        else:
            done = await target.pack.resume(id)
            outcome = (
                _("Resumed `{id}`.", id=id)
                if done
                else _("No paused task `{id}` on {server}.", id=id, server=target.name)
            )
        await audited_reply(interaction, target, "resume", {"id": id}, outcome)


async def setup(bot: DoomBot) -> None:
    await bot.add_cog(ScheduleCog(bot))
