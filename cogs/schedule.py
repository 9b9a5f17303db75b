"""Slash commands that change a server's queue: schedule, cancel, clear, pause, resume, run now,
and the plan file's export and import."""

from __future__ import annotations

__all__ = ["ConfirmView", "ScheduleCog", "setup"]

import io
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord.slash import fit
from bot.discord.slash.cog_helpers import (
    AFTER_WAIT,
    IF_NOT,
    ON_DOUBT,
    InvokerView,
    TaskId,
    deferred,
    server_autocomplete,
    server_command,
    task_command,
)
from bot.discord.slash.embeds import embed_of
from bot.discord.slash.permissions import is_admin, is_moderator
from bot.discord.slash.planned_ui import timezone_autocomplete
from bot.i18n import N_, _
from bot.minecraft.task_fields import (
    MAX_COMMAND,
    MAX_ID,
    MAX_INT,
    MAX_PLAYER,
    MAX_REQUIRE,
    MAX_RETRY,
    MAX_TIME_TEXT,
    MAX_ZONE,
)
from bot.operations import Caller, Operations, groups, plan, queue, runs
from bot.operations import schedule as schedule_ops
from bot.operations.sections import planned_section, scheduled_section
from bot.times.dst import REPEATED, SKIPPED

if TYPE_CHECKING:
    from bot.discord.app import DoomBot

log = logging.getLogger(__name__)

Interaction = discord.Interaction["DoomBot"]
# the pack's unit names; "day" is a real day, "game_day" one in-game day (24000 ticks)
UNITS = [
    *(app_commands.Choice(name=n, value=n) for n in ("tick", "second", "minute", "hour", "day")),
    app_commands.Choice(name="game_day", value="game_day"),
]
RUN_HELP = schedule_ops.FIELD_HELP["run"]
# /schedule's options but `server`, which server_command describes
TASK_HELP: dict[str, Any] = {k: v for k, v in schedule_ops.FIELD_HELP.items() if k != "server"}
RunText = app_commands.Range[str, 1, MAX_COMMAND]
Said = queue.Changed | runs.RanNow | groups.GroupOutcome[Any]  # what a change's reply says
Delay = app_commands.Range[int, 0, MAX_INT]
# what a repeating wall-clock row does when the clocks change (bot.times.dst)
# (shown names of their own: "second" is also a unit of time, which a catalog says once)
DST_REPEATED = [
    app_commands.Choice(name=schedule_ops.CHOICE_NAMES["dst_repeated"][n], value=n)
    for n in REPEATED
]
DST_SKIPPED = [
    app_commands.Choice(name=schedule_ops.CHOICE_NAMES["dst_skipped"][n], value=n) for n in SKIPPED
]


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


class ScheduleCog(commands.Cog, name="Schedule"):
    """Commands that change the queue; every one is audited."""

    confirm_timeout: float = 60.0  # tests shorten it
    plan_group = app_commands.Group(
        name="plan",
        description="The plan as a file: export it, import one.",
        guild_only=True,
        allowed_contexts=app_commands.AppCommandContext(guild=True),
    )

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
        **TASK_HELP,
        groups=True,
    )
    @app_commands.choices(
        unit=UNITS,
        if_not=IF_NOT,
        after_wait=AFTER_WAIT,
        on_doubt=ON_DOUBT,
        dst_repeated=DST_REPEATED,
        dst_skipped=DST_SKIPPED,
    )
    @app_commands.autocomplete(timezone=timezone_autocomplete)
    async def schedule(
        self,
        interaction: Interaction,
        run: RunText,
        time: Delay | None = None,
        unit: str | None = None,
        id: app_commands.Range[str, 1, MAX_ID] | None = None,
        retry: app_commands.Range[int, 0, MAX_RETRY] = 0,
        retry_delay: app_commands.Range[int, 1, MAX_INT] = 1,
        every: app_commands.Range[int, 1, MAX_INT] | None = None,
        at: app_commands.Range[int, 0, 2**63 - 1] | None = None,
        as_player: app_commands.Range[str, 1, MAX_PLAYER] | None = None,
        server: str | None = None,
        when: app_commands.Range[str, 1, MAX_TIME_TEXT] | None = None,
        repeat: app_commands.Range[str, 1, MAX_TIME_TEXT] | None = None,
        timezone: app_commands.Range[str, 1, MAX_ZONE] | None = None,
        announce: app_commands.Range[str, 1, MAX_TIME_TEXT] | None = None,
        require: app_commands.Range[str, 1, MAX_REQUIRE] | None = None,
        if_not: str | None = None,
        max_wait: app_commands.Range[str, 1, MAX_TIME_TEXT] | None = None,
        after_wait: str | None = None,
        on_doubt: str | None = None,
        dst_repeated: str | None = None,
        dst_skipped: str | None = None,
    ) -> None:
        request = schedule_ops.ScheduleRequest(
            run=run,
            server=server,
            time=time,
            unit=unit,  # type: ignore[arg-type]
            id=id,
            retry=retry,
            retry_delay=retry_delay,
            every=every,
            at=at,
            as_player=as_player,
            when=when,
            repeat=repeat,
            timezone=timezone,
            announce=announce,
            require=require,
            if_not=if_not,  # type: ignore[arg-type]
            max_wait=max_wait,
            after_wait=after_wait,  # type: ignore[arg-type]
            on_doubt=on_doubt,  # type: ignore[arg-type]
            dst_repeated=dst_repeated,  # type: ignore[arg-type]
            dst_skipped=dst_skipped,  # type: ignore[arg-type]
        )
        caller = self.bot.caller(interaction)
        if self.bot.ops.group(server) is not None:  # each server of the group says its outcome
            await interaction.response.defer(ephemeral=True, thinking=True)
            fanned = await groups.schedule(self.bot.ops, caller, request)
            await interaction.followup.send(fit.content(fanned.text), ephemeral=True)
            return
        # checked before deferring, so a typo gets its caret at once, as the only (ephemeral)
        # reply; the operation checks again (the verdict is cached)
        schedule_ops.check(self.bot.ops, caller, request)
        if not request.wallclock:
            await interaction.response.defer(ephemeral=True, thinking=True)
        made = await schedule_ops.schedule(self.bot.ops, caller, request)
        if made.planned is not None:
            assert self.bot.services.scheduler is not None
            embed = embed_of(planned_section(made.planned, list(made.upcoming), title=_("Planned")))
            await interaction.response.send_message(made.text, embed=embed, ephemeral=True)
        elif made.task is None:
            await interaction.followup.send(made.text, ephemeral=True)
        else:
            embed = embed_of(
                scheduled_section(
                    made.task, made.server, title=_("Scheduled"), on_doubt=request.on_doubt
                )
            )
            await interaction.followup.send(made.text, embed=embed, ephemeral=True)

    @server_command(
        "Run a command after some game time, under a new unique id.",
        run=RUN_HELP,
        time="How long to wait, in `unit`s.",
        unit="The unit of `time` (game_day = 24000 ticks).",
        prefix="The start of the generated id.",
        groups=True,
    )
    @app_commands.choices(unit=UNITS)
    async def schedule_dynamic(
        self,
        interaction: Interaction,
        run: RunText,
        time: Delay,
        unit: str,
        prefix: app_commands.Range[str, 1, 32] = schedule_ops.DYNAMIC_PREFIX,
        server: str | None = None,
    ) -> None:
        request = schedule_ops.DynamicRequest(
            run=run,
            time=time,
            unit=unit,  # type: ignore[arg-type]
            prefix=prefix,
            server=server,
        )
        caller = self.bot.caller(interaction)
        if self.bot.ops.group(server) is not None:  # each server of the group says its outcome
            await interaction.response.defer(ephemeral=True, thinking=True)
            fanned = await groups.schedule_dynamic(self.bot.ops, caller, request)
            await interaction.followup.send(fit.content(fanned.text), ephemeral=True)
            return
        self.bot.server(server).checker.check(run)  # before deferring: the caret is the only reply
        await interaction.response.defer(ephemeral=True, thinking=True)
        made = await schedule_ops.schedule_dynamic(self.bot.ops, caller, request)
        await interaction.followup.send(made.text, ephemeral=True)

    @task_command("Cancel the next task with this id.")
    async def cancel(self, interaction: Interaction, id: TaskId, server: str | None = None) -> None:
        await self._change(
            interaction, queue.cancel, groups.cancel, queue.TaskRef(id=id, server=server)
        )

    @task_command("Pause a task: its remaining delay is kept.")
    async def pause(self, interaction: Interaction, id: TaskId, server: str | None = None) -> None:
        await self._change(
            interaction, queue.pause, groups.pause, queue.TaskRef(id=id, server=server)
        )

    @task_command("Resume a paused task.")
    async def resume(self, interaction: Interaction, id: TaskId, server: str | None = None) -> None:
        await self._change(
            interaction, queue.resume, groups.resume, queue.TaskRef(id=id, server=server)
        )

    @task_command("Run a task once, now; its schedule stays as it is.")
    async def run_now(
        self, interaction: Interaction, id: TaskId, server: str | None = None
    ) -> None:
        await self._change(
            interaction, runs.run_now, groups.run_now, queue.TaskRef(id=id, server=server)
        )

    async def _change(
        self,
        interaction: Interaction,
        operation: Callable[[Operations, Caller, queue.TaskRef], Awaitable[Said]],
        on_group: Callable[[Operations, Caller, queue.TaskRef], Awaitable[Said]],
        request: queue.TaskRef,
    ) -> None:
        """The one-server operation, or its group operation when `server` names a group."""
        await deferred(interaction, request.server)
        group = self.bot.ops.group(request.server) is not None
        changed = await (on_group if group else operation)(
            self.bot.ops, self.bot.caller(interaction), request
        )
        await interaction.followup.send(fit.content(changed.text), ephemeral=True)

    @task_command("Cancel every task with this id (asks first).", id_help="The tasks' id.")
    async def cancel_all(
        self, interaction: Interaction, id: TaskId, server: str | None = None
    ) -> None:
        request = queue.TaskRef(id=id, server=server)
        await deferred(interaction, server, ephemeral=False)
        caller = self.bot.caller(interaction)
        if self.bot.ops.group(server) is not None:
            counted = await groups.count(self.bot.ops, caller, request)
            if not any(
                c.value is not None and (c.value.count or c.value.planned) for c in counted.outcomes
            ):
                await interaction.followup.send(fit.content(counted.text))
                return
            change: Callable[[Operations, Caller, queue.TaskRef], Awaitable[Said]]
            question, change = counted.text, groups.cancel_all
        else:
            one = await queue.count(self.bot.ops, caller, request)
            if one.count == 0 and not one.planned:
                await interaction.followup.send(one.text)
                return
            question, change = one.text, queue.cancel_all

        async def action(pressed: Interaction) -> str:
            done = await change(self.bot.ops, self.bot.caller(pressed), request)
            return fit.content(done.text)

        await self._confirm(interaction, fit.content(question), action)

    @server_command("Remove every task from a server (asks first).", check=is_admin, groups=True)
    async def clear(self, interaction: Interaction, server: str | None = None) -> None:
        request = queue.ServerRef(server=server)
        await deferred(interaction, server, ephemeral=False)
        caller = self.bot.caller(interaction)
        if self.bot.ops.group(server) is not None:
            question = groups.size(self.bot.ops, caller, request).text
            change: Callable[[Operations, Caller, queue.ServerRef], Awaitable[Said]]
            change = groups.clear
        else:
            question, change = queue.size(self.bot.ops, caller, request).text, queue.clear

        async def action(pressed: Interaction) -> str:
            done = await change(self.bot.ops, self.bot.caller(pressed), request)
            return fit.content(done.text)

        await self._confirm(interaction, question, action)

    @plan_group.command(
        name="export", description="A server's planned tasks, game-time tasks and events as YAML."
    )
    @app_commands.describe(server="Which Minecraft server.")
    @app_commands.autocomplete(server=server_autocomplete)
    @is_moderator()
    async def plan_export(self, interaction: Interaction, server: str | None = None) -> None:
        await deferred(interaction, server)
        made = await plan.export(
            self.bot.ops, self.bot.caller(interaction), plan.ExportRequest(server=server)
        )
        name = f"plan-{made.document.server}.yaml"
        file = discord.File(io.BytesIO(made.text.encode()), filename=name)
        await interaction.followup.send(
            _("The plan of {server}.", server=made.document.server), file=file, ephemeral=True
        )

    @plan_group.command(
        name="import", description="Read a plan file: shows what changes, then asks to do it."
    )
    @app_commands.describe(
        file="The plan file (YAML, as /plan export writes it).",
        server="Which Minecraft server (default: the file's).",
    )
    @app_commands.autocomplete(server=server_autocomplete)
    @is_moderator()
    async def plan_import(
        self, interaction: Interaction, file: discord.Attachment, server: str | None = None
    ) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        if file.size > plan.MAX_FILE:
            await interaction.followup.send(_("The plan file is too large."), ephemeral=True)
            return
        text = (await file.read()).decode("utf-8", errors="replace")
        dry = plan.ImportRequest(document=text, server=server, dry_run=True)
        shown = await plan.import_plan(self.bot.ops, self.bot.caller(interaction), dry)

        async def action(pressed: Interaction) -> str:
            real = dry.model_copy(update={"dry_run": False})
            done = await plan.import_plan(self.bot.ops, self.bot.caller(pressed), real)
            return fit.content(done.text)

        await self._confirm(interaction, fit.content(shown.text), action)


async def setup(bot: DoomBot) -> None:
    await bot.add_cog(ScheduleCog(bot))
