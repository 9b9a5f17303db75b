"""What the cogs share: the decorator stack of a server command, task-id autocomplete, the
defer -> pack call -> audit -> follow-up frame, and a view only its invoker may press.

Cogs never import each other; each imports these from here, so a change to how a server command
is declared or answered is made once.
"""

from __future__ import annotations

__all__ = [
    "AFTER_WAIT",
    "GROUP_HELP",
    "IF_NOT",
    "ON_DOUBT",
    "SERVER_HELP",
    "TASK_ID_HELP",
    "InvokerView",
    "TaskId",
    "audited_reply",
    "deferred",
    "late_followup",
    "server_autocomplete",
    "server_command",
    "target_autocomplete",
    "task_command",
    "task_id_autocomplete",
]

import asyncio
import logging
import weakref
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

import discord
from discord import app_commands

from bot import errors
from bot.config import ALL_SERVERS
from bot.i18n import N_, _, set_locale
from bot.slash import errors_ui, fit
from bot.slash.permissions import is_moderator

if TYPE_CHECKING:
    from bot.app import DoomBot
    from bot.services import ServerServices

log = logging.getLogger(__name__)

Interaction = discord.Interaction["DoomBot"]
F = TypeVar("F", bound=Callable[..., Any])
Check = Callable[[], Callable[[F], F]]

SERVER_HELP = "Which Minecraft server."
GROUP_HELP = "Which Minecraft server, or a group of them (all: every server)."
# the choices of the condition options (bot.minecraft.conditions), on /schedule and /event create
IF_NOT = [app_commands.Choice(name=n, value=n) for n in ("skip", "wait")]
AFTER_WAIT = [app_commands.Choice(name=n, value=n) for n in ("run", "skip")]
# what the crash guard does when a crash leaves a run unknown (bot.background.doubt), /schedule
ON_DOUBT = [app_commands.Choice(name=n, value=n) for n in ("skip", "run")]
TASK_ID_HELP = "The task's id."
MAX_CHOICES = 25  # Discord's limit on autocomplete choices
MAX_CHOICE_LEN = 100
# Discord drops an autocomplete answer after 3 s and autocomplete cannot be deferred: past this
# budget the ids the server gave last time are offered instead of waiting for a slow server
AUTOCOMPLETE_BUDGET = 2.0
TaskId = app_commands.Range[str, 1, 64]  # the pack's limit on a task id


async def server_autocomplete(
    interaction: Interaction, current: str
) -> list[app_commands.Choice[str]]:
    """Configured server names starting with (then containing) what the user typed."""
    names = sorted(interaction.client.services.servers)
    low = current.lower()
    ranked = [n for n in names if n.lower().startswith(low)]
    ranked += [n for n in names if low in n.lower() and n not in ranked]
    return [app_commands.Choice(name=n, value=n) for n in ranked[:MAX_CHOICES]]


async def target_autocomplete(
    interaction: Interaction, current: str
) -> list[app_commands.Choice[str]]:
    """Server names, then the server groups and `all` (for a command that takes a group)."""
    servers = await server_autocomplete(interaction, current)
    settings = interaction.client.settings
    if len(interaction.client.services.servers) < 2:
        return servers
    low = current.lower()
    names = [*sorted(settings.server_groups), ALL_SERVERS]
    found = [app_commands.Choice(name=n, value=n) for n in names if low in n.lower()]
    return (servers + found)[:MAX_CHOICES]


def server_command(
    description: str,
    *,
    name: str | None = None,
    check: Check[Any] = is_moderator,
    server_help: str | None = SERVER_HELP,
    groups: bool = False,
    **describe: str,
) -> Callable[[Any], app_commands.Command[Any, ..., Any]]:
    """A guild-only slash command with a permission check and a `server` option autocompleted
    from the configured servers; `describe` documents the other options.

    `server_help=None` leaves the server option undescribed (Discord then shows "…");
    `groups` offers the server groups (and `all`) too, for a command that takes one.
    """
    if groups and server_help == SERVER_HELP:
        server_help = GROUP_HELP
    if server_help is not None:
        describe = {**describe, "server": server_help}

    def decorator(func: Any) -> app_commands.Command[Any, ..., Any]:
        func = check()(func)
        func = app_commands.guild_only()(func)
        complete = target_autocomplete if groups else server_autocomplete
        func = app_commands.autocomplete(server=complete)(func)
        if describe:
            func = app_commands.describe(**describe)(func)
        if name is None:
            return app_commands.command(description=description)(func)
        return app_commands.command(name=name, description=description)(func)

    return decorator


def task_command(
    description: str, *, id_help: str = TASK_ID_HELP
) -> Callable[[Any], app_commands.Command[Any, ..., Any]]:
    """A moderator command on one task: `id` (autocompleted from the queue) and `server`, a
    server or a group of them (the command then acts on, or reads, each)."""

    def decorator(func: Any) -> app_commands.Command[Any, ..., Any]:
        func = app_commands.autocomplete(id=task_id_autocomplete)(func)
        return server_command(description, groups=True, id=id_help)(func)

    return decorator


class _IdCache:
    """Task ids a server gave lately, and the one lookup in flight per server.

    One lookup at a time per server: keystrokes on a slow server share it instead of piling up
    round trips; past the budget the answer comes from the ids seen before, and the lookup's
    answer still arrives and refreshes them for the next keystroke.
    """

    def __init__(self) -> None:
        self.recent: dict[str, list[str]] = {}
        self.inflight: dict[str, tuple[str, asyncio.Task[list[str]]]] = {}

    def _remember(self, server: str, done: asyncio.Task[list[str]]) -> None:
        if not done.cancelled() and done.exception() is None:
            self.recent[server] = sorted({*self.recent.get(server, []), *done.result()})[-500:]

    async def lookup(self, server: ServerServices, current: str) -> list[str]:
        low = current.lower()
        prefix, task = self.inflight.get(server.name, (current, None))
        if task is None or task.done():
            prefix = current
            task = asyncio.ensure_future(server.pack.task_ids(current, limit=MAX_CHOICES))
            task.add_done_callback(lambda done: self._remember(server.name, done))
            self.inflight[server.name] = (prefix, task)
        try:
            ids = await asyncio.wait_for(asyncio.shield(task), AUTOCOMPLETE_BUDGET)
        except TimeoutError:
            return [i for i in self.recent.get(server.name, []) if i.lower().startswith(low)]
        # a lookup started for another keystroke: keep what also fits this one
        return ids if prefix == current else [i for i in ids if low in i.lower()]


_id_caches: weakref.WeakKeyDictionary[DoomBot, _IdCache] = weakref.WeakKeyDictionary()


@is_moderator()  # discord.py runs the callback's own checks, not the command's, for autocomplete
async def task_id_autocomplete(
    interaction: Interaction, current: str
) -> list[app_commands.Choice[str]]:
    """Task ids starting with what the user typed, on the server the command names: planned
    (wall-clock) rows first, then the pack's lists.

    Only for moderators: anyone else would read the queue (and cost a round trip per keystroke).
    A server slower than :data:`AUTOCOMPLETE_BUDGET` gets the ids it gave last time (see
    :class:`_IdCache`)."""
    name = getattr(interaction.namespace, "server", None)
    try:
        servers = interaction.client.ops.group(name) or [interaction.client.server(name)]
    except errors.BotError:
        return []  # an unknown server just offers nothing; the command will say why
    ids: list[str] = []
    scheduler = interaction.client.services.scheduler
    if scheduler is not None:  # planned rows come from the bot's own database: no round trip
        for server in servers:
            found = await scheduler.task_ids(server.name, current, MAX_CHOICES)
            ids += [i for i in found if i not in ids]
    cache = _id_caches.setdefault(interaction.client, _IdCache())
    # a group's servers are asked at once: the budget is for the whole answer
    looked = await asyncio.gather(
        *(cache.lookup(s, current) for s in servers), return_exceptions=True
    )
    for found_ids in looked:
        if isinstance(found_ids, errors.BotError):
            continue  # an unreachable server offers only the planned ids; the command says why
        if isinstance(found_ids, BaseException):
            raise found_ids
        ids += [i for i in found_ids if i not in ids]
    low = current.lower()
    ids.sort(key=lambda i: not i.lower().startswith(low))  # stable: prefix matches first
    # a choice's name and value are 1-100 characters (bot.localdiscord.limits); ids are <= 64
    return [app_commands.Choice(name=i, value=i) for i in ids if 0 < len(i) <= MAX_CHOICE_LEN][
        :MAX_CHOICES
    ]


async def deferred(
    interaction: Interaction, server: str | None, *, ephemeral: bool = True
) -> list[ServerServices]:
    """The named server's services (a group's: each server's), once the interaction is
    deferred (a round trip follows).

    The name is resolved first, so an unknown one is the only (ephemeral) reply.
    """
    group = interaction.client.ops.group(server)
    targets = group if group is not None else [interaction.client.server(server)]
    await interaction.response.defer(ephemeral=ephemeral, thinking=True)
    return targets


async def audited_reply(
    interaction: Interaction,
    server: ServerServices | None,
    action: str,
    request: Mapping[str, object],
    outcome: str,
) -> None:
    """Record the mutation, then tell the invoker its outcome (ephemeral follow-up)."""
    await interaction.client.audit(interaction, server, action, request, outcome)
    await interaction.followup.send(fit.content(outcome), ephemeral=True)


TOKEN_EXPIRED = 50027  # Discord's "Invalid Webhook Token": the 15 minutes of a follow-up are over


async def late_followup(interaction: Interaction, text: str) -> None:
    """An ephemeral follow-up, or, once Discord's 15 minutes for one are over (a very slow
    server), the same text in the command's channel, addressed to the invoker: the answer is
    not lost with the token."""
    try:
        await interaction.followup.send(fit.content(text), ephemeral=True)
        return
    except discord.HTTPException as e:
        if e.code != TOKEN_EXPIRED or interaction.channel_id is None:
            raise
    channel = interaction.client.get_partial_messageable(interaction.channel_id)
    user = interaction.user
    late = _(
        "{user}, the answer to your command came after Discord's 15 minutes:", user=user.mention
    )
    only_them = discord.AllowedMentions(users=[user])
    await channel.send(fit.content(f"{late}\n{text}"), allowed_mentions=only_them)


class InvokerView(discord.ui.View):
    """A view only the user who ran the command may press; others get `refusal`.

    Its errors end in :mod:`bot.slash.errors_ui` like a command's.
    """

    refusal = N_("Only the person who ran the command can answer this.")

    def __init__(self, invoker_id: int, *, timeout: float) -> None:
        super().__init__(timeout=timeout)
        self.invoker_id = invoker_id
        for item in self.children:  # labels are marked with N_() and shown in the reader's language
            if isinstance(item, discord.ui.Button) and item.label:
                item.label = _(item.label)

    async def interaction_check(self, interaction: Interaction) -> bool:  # type: ignore[override]
        set_locale(interaction.locale)  # the presser's language, like a command's reply
        if interaction.user.id == self.invoker_id:
            return True
        await interaction.response.send_message(_(self.refusal), ephemeral=True)
        return False

    def disable_buttons(self) -> None:
        for item in self.children:
            if isinstance(item, discord.ui.Button):
                item.disabled = True

    async def edit_expired(
        self, message: discord.Message | discord.WebhookMessage | None, **changes: Any
    ) -> None:
        """Show the disabled buttons on `message` after a timeout; failing to is only logged."""
        if message is None:
            return
        try:
            await message.edit(view=self, **changes)
        except discord.HTTPException:
            log.info("could not update the expired %s", type(self).__name__, exc_info=True)

    async def on_error(  # type: ignore[override]
        self, interaction: Interaction, error: Exception, item: discord.ui.Item[Any]
    ) -> None:
        await errors_ui.report(interaction, error)
