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

import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

import discord
from discord import app_commands

from bot.discord.slash import errors_ui, fit
from bot.discord.slash.permissions import is_moderator
from bot.i18n import N_, _, set_locale

if TYPE_CHECKING:
    from bot.discord.app import DoomBot
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
TaskId = app_commands.Range[str, 1, 64]  # the pack's limit on a task id


def _choices(values: list[str]) -> list[app_commands.Choice[str]]:
    return [app_commands.Choice(name=v, value=v) for v in values]


async def server_autocomplete(
    interaction: Interaction, current: str
) -> list[app_commands.Choice[str]]:
    """Configured server names starting with (then containing) what the user typed."""
    return _choices(interaction.client.ops.suggest.servers(current, groups=False))


async def target_autocomplete(
    interaction: Interaction, current: str
) -> list[app_commands.Choice[str]]:
    """Server names, then the server groups and `all` (for a command that takes a group)."""
    return _choices(interaction.client.ops.suggest.servers(current, groups=True))


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


@is_moderator()  # discord.py runs the callback's own checks, not the command's, for autocomplete
async def task_id_autocomplete(
    interaction: Interaction, current: str
) -> list[app_commands.Choice[str]]:
    """Task ids starting with what the user typed, on the server the command names: planned
    (wall-clock) rows first, then the pack's lists.

    Only for moderators: anyone else would read the queue (and cost a round trip per keystroke).
    A server slower than :data:`AUTOCOMPLETE_BUDGET` gets the ids it gave last time (see
    :class:`_IdCache`)."""
    bot: DoomBot = interaction.client
    server = getattr(interaction.namespace, "server", None)
    return _choices(await bot.ops.suggest.task_ids(bot.caller(interaction), current, server))


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

    Its errors end in :mod:`bot.discord.slash.errors_ui` like a command's.
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
