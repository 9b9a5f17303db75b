"""Slash commands that read a server's state: time, list, show, history, help."""

from __future__ import annotations

__all__ = ["PageView", "ReadsCog", "setup"]

import io
import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeVar

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord.slash import fit
from bot.discord.slash.cog_helpers import (
    InvokerView,
    TaskId,
    deferred,
    server_command,
    task_command,
)
from bot.discord.slash.embeds import embed_of
from bot.discord.slash.fit import pack_embeds
from bot.discord.slash.translator import shown_name
from bot.i18n import N_, _
from bot.operations import groups, reads, runs
from bot.operations.queue import ServerRef, TaskRef
from bot.operations.sections import (
    clock_section,
    history_section,
    page_section,
    planned_section,
    task_section,
)

if TYPE_CHECKING:
    from bot.discord.app import DoomBot

log = logging.getLogger(__name__)

Interaction = discord.Interaction["DoomBot"]
MAX_INLINE_RUN = 1000  # longer commands are attached to /show's reply
LISTS = [app_commands.Choice(name=n, value=n) for n in ("queue", "offline", "paused", "planned")]
PageFetcher = Callable[[int], Awaitable[discord.Embed]]
T = TypeVar("T")


class PageView(InvokerView):
    """Previous / Next over a paginated list; pages are fetched live, only the invoker pages."""

    refusal = N_("Run the command yourself to page through the list.")

    def __init__(
        self, invoker_id: int, fetch: PageFetcher, pages: int, *, timeout: float = 300.0
    ) -> None:
        super().__init__(invoker_id, timeout=timeout)
        self.fetch = fetch
        self.pages = pages
        self.page = 0
        self.message: discord.WebhookMessage | None = None
        self._sync()

    def _sync(self) -> None:
        self.previous.disabled = self.page <= 0
        self.next.disabled = self.page >= self.pages - 1

    async def _turn(self, interaction: Interaction, page: int) -> None:
        # acknowledged before the round trip: a slow server must not cost the 3-second deadline
        await interaction.response.defer()
        self.page = max(0, min(page, self.pages - 1))
        self._sync()
        embed = await self.fetch(self.page)
        await interaction.edit_original_response(embed=embed, view=self)

    @discord.ui.button(label=N_("Previous"), style=discord.ButtonStyle.secondary)
    async def previous(self, interaction: Interaction, button: discord.ui.Button[Any]) -> None:
        await self._turn(interaction, self.page - 1)

    @discord.ui.button(label=N_("Next"), style=discord.ButtonStyle.secondary)
    async def next(self, interaction: Interaction, button: discord.ui.Button[Any]) -> None:
        await self._turn(interaction, self.page + 1)

    async def on_timeout(self) -> None:
        self.disable_buttons()
        await self.edit_expired(self.message)


class ReadsCog(commands.Cog, name="Reads"):
    """Read-only views of the queue and the game clock."""

    def __init__(self, bot: DoomBot) -> None:
        self.bot = bot

    async def _page(self, interaction: Interaction, request: reads.ListRequest) -> reads.Page:
        return await reads.page(self.bot.ops, self.bot.caller(interaction), request)

    @staticmethod
    def _embed(page: reads.Page) -> discord.Embed:
        return embed_of(page_section(page))

    # -- commands ---------------------------------------------------------------------------

    async def _sections(
        self,
        interaction: Interaction,
        fanned: groups.GroupOutcome[T],
        embed: Callable[[T], discord.Embed | None],
        note: str | None = None,
    ) -> None:
        """A group's read: an embed a server that answered with something to show, a line for
        each other one (unreachable, or nothing there)."""
        embeds: list[discord.Embed] = []
        lines = [fanned.head, *([note] if note else [])]
        for outcome in fanned.outcomes:
            made = embed(outcome.value) if outcome.value is not None else None
            if made is None:
                lines.append(groups.line(outcome, read=True))
            else:
                embeds.append(made)
        content = fit.content("\n".join(lines))
        for i, batch in enumerate(pack_embeds(embeds) or [[]]):  # 10 and 6,000 characters
            await interaction.followup.send(
                content if i == 0 else discord.utils.MISSING, embeds=batch, ephemeral=True
            )

    @staticmethod
    def _history_embed(found: runs.History) -> discord.Embed:
        return embed_of(history_section(found))

    @staticmethod
    def _clock_embed(clock: reads.Clock) -> discord.Embed:
        return embed_of(clock_section(clock))

    @server_command("The server's game time and measured ticks per second.", groups=True)
    async def time(self, interaction: Interaction, server: str | None = None) -> None:
        await deferred(interaction, server)
        caller, request = self.bot.caller(interaction), ServerRef(server=server)
        if self.bot.ops.group(server) is not None:
            fanned = await groups.game_time(self.bot.ops, caller, request)
            await self._sections(interaction, fanned, self._clock_embed)
            return
        clock = await reads.game_time(self.bot.ops, caller, request)
        await interaction.followup.send(embed=self._clock_embed(clock), ephemeral=True)

    @server_command(
        "List the tasks waiting in one list.",
        name="list",
        which="queue (waiting), offline (player away), paused, or planned (wall-clock).",
        groups=True,
    )
    @app_commands.choices(which=LISTS)
    async def list_(
        self, interaction: Interaction, which: str = "queue", server: str | None = None
    ) -> None:
        await deferred(interaction, server)
        request = reads.ListRequest(which=which, server=server)  # type: ignore[arg-type]
        if self.bot.ops.group(server) is not None:  # the first page of each server's list
            fanned = await groups.page(self.bot.ops, self.bot.caller(interaction), request)
            note = _("The first page of each server; name one server to page through its list.")
            await self._sections(interaction, fanned, self._embed, note)
            return
        first = await self._page(interaction, request)
        if first.pages == 1:
            await interaction.followup.send(embed=self._embed(first), ephemeral=True)
            return

        async def fetch(number: int) -> discord.Embed:
            request = reads.ListRequest(which=first.which, page=number, server=server)  # type: ignore[arg-type]
            return self._embed(await self._page(interaction, request))

        view = PageView(interaction.user.id, fetch, first.pages)
        view.message = await interaction.followup.send(
            embed=self._embed(first), view=view, ephemeral=True, wait=True
        )

    @task_command("Show one task.")
    async def show(self, interaction: Interaction, id: TaskId, server: str | None = None) -> None:
        await deferred(interaction, server)
        caller, request = self.bot.caller(interaction), TaskRef(id=id, server=server)
        if self.bot.ops.group(server) is not None:  # each server's task of that id
            fanned = await groups.show(self.bot.ops, caller, request)
            await self._sections(interaction, fanned, lambda s: self._shown_embed(s, id, True))
            return
        shown = await reads.show(self.bot.ops, caller, request)
        if shown.planned is None and shown.task is None:
            await interaction.followup.send(
                _("No task `{id}` on {server}.", id=id, server=shown.server.name), ephemeral=True
            )
            return
        files: list[discord.File] = []
        task = shown.task
        if task is not None and len(task.run.replace("`", "'")) > MAX_INLINE_RUN:
            # a long command goes along whole, as a file
            files.append(discord.File(io.BytesIO(task.run.encode()), filename=f"{task.id}.txt"))
        embed = self._shown_embed(shown, id)
        assert embed is not None  # a planned row or a task
        await interaction.followup.send(embed=embed, files=files, ephemeral=True)

    @staticmethod
    def _shown_embed(
        shown: reads.Shown, task_id: str, in_group: bool = False
    ) -> discord.Embed | None:
        """A planned row or a queued task as /show's embed; None when there is neither. In a
        group's reply each names its server, and a long command is cut (no file for each)."""
        author = shown.server.name if in_group else ""
        if shown.planned is not None:
            title = _("Planned `{id}`", id=task_id)
            section = planned_section(shown.planned, shown.upcoming, shown.runs, title=title)
            return embed_of(replace(section, author=author))
        task = shown.task
        if task is None:
            return None
        run = task.run.replace("`", "'")
        if len(run) > MAX_INLINE_RUN:
            more = "…" if in_group else _("... (the whole command is attached)")
            run = run[:MAX_INLINE_RUN] + more
        section = task_section(task, shown.server, shown.on_doubt, run)
        return embed_of(replace(section, author=author))

    @task_command("What became of a task's runs: when, how late, by whom; paged.")
    async def history(
        self, interaction: Interaction, id: TaskId, server: str | None = None
    ) -> None:
        await deferred(interaction, server)
        caller = self.bot.caller(interaction)
        if self.bot.ops.group(server) is not None:  # each server's runs, one section each
            fanned = await groups.history(
                self.bot.ops, caller, runs.HistoryRequest(id=id, server=server)
            )
            note = _("The newest page of each server; name one server to page through its runs.")
            await self._sections(interaction, fanned, self._history_embed, note)
            return
        first = await runs.history(self.bot.ops, caller, runs.HistoryRequest(id=id, server=server))
        if first.pages == 1:
            await interaction.followup.send(embed=self._history_embed(first), ephemeral=True)
            return

        async def fetch(number: int) -> discord.Embed:
            request = runs.HistoryRequest(id=id, server=server, page=number + 1)
            return self._history_embed(await runs.history(self.bot.ops, caller, request))

        view = PageView(interaction.user.id, fetch, first.pages)
        view.message = await interaction.followup.send(
            embed=self._history_embed(first), view=view, ephemeral=True, wait=True
        )

    @app_commands.command(description="What each command does.")
    async def help(self, interaction: Interaction) -> None:
        embed = discord.Embed(title=_("doom.schedule commands"), colour=0x3498DB)
        lines = []
        for cmd in sorted(self.bot.tree.walk_commands(), key=lambda c: c.qualified_name):
            if isinstance(cmd, app_commands.Command):
                shown = shown_name(cmd)  # as Discord shows it
                also = f" (/{cmd.qualified_name})" if shown != cmd.qualified_name else ""
                lines.append(f"**/{shown}**{also}: {_(cmd.description)}")
        embed.description = "\n".join(lines)[:4096]
        embed.set_footer(
            text=_(
                "Times are game time (a lagging or empty server runs tasks later) unless you "
                "give /schedule `when` or `repeat`: those are wall-clock times."
            )
        )
        await interaction.response.send_message(embed=embed, ephemeral=True)


async def setup(bot: DoomBot) -> None:
    await bot.add_cog(ReadsCog(bot))
