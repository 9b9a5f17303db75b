"""A slash command for each operation of the registry (bot.operations.registry), built from its
spec: its name, its summary as the description, one option per request field (a Literal's words
as choices; a field with a default is optional). The console reads the same spec
(console.parse). Answering is :func:`bot.operations.registry.run`'s: the rank check, the
request's validation in the words every face uses, the handler, the audit."""

from __future__ import annotations

__all__ = ["command_for"]

import inspect
import io
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.discord.slash import fit
from bot.discord.slash.embeds import embed_of
from bot.operations.registry import CHOICE_NAMES_KEY, OperationSpec, option_type, run

if TYPE_CHECKING:
    from pydantic.fields import FieldInfo

    from bot.discord.app import DoomBot


def _signature(spec: OperationSpec[Any]) -> inspect.Signature:
    """What discord.py reads a command's options from: the interaction, then each field."""
    params = [
        inspect.Parameter(
            "interaction", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=discord.Interaction
        )
    ]
    fields = sorted(spec.request.model_fields.items(), key=lambda f: not f[1].is_required())
    for name, info in fields:
        kind = option_type(info.annotation)
        if _choice_names(info):  # words of their own (_choices): the request checks the value
            kind = str
        default = inspect.Parameter.empty if info.is_required() else None
        annotation = kind if default is inspect.Parameter.empty else kind | None
        params.append(
            inspect.Parameter(
                name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation, default=default
            )
        )
    return inspect.Signature(params)


def command_for(spec: OperationSpec[Any], name: str = "") -> app_commands.Command[Any, ..., Any]:
    """The spec's slash command, called `name` (a group's subcommand) or the spec's name."""

    async def callback(interaction: discord.Interaction[DoomBot], **given: Any) -> None:
        bot = interaction.client
        # a field left out keeps the request's default, which the model says
        data = {k: v for k, v in given.items() if v is not None}
        await interaction.response.defer(ephemeral=True, thinking=True)
        done = await run(bot.ops, bot.caller(interaction), spec.name, data)
        files = [discord.File(io.BytesIO(f.content), filename=f.name) for f in done.files]
        embeds = [embed_of(s) for s in done.sections][:10]  # Discord's most in one message
        await interaction.followup.send(
            fit.content(done.text) if done.text else discord.utils.MISSING,
            embeds=embeds,
            files=files,
            ephemeral=True,
        )

    callback.__signature__ = _signature(spec)  # type: ignore[attr-defined]
    descriptions = {
        name: (info.description or name)[:100] for name, info in spec.request.model_fields.items()
    }
    callback.__discord_app_commands_param_description__ = descriptions  # type: ignore[attr-defined]
    callback.__discord_app_commands_param_choices__ = _choices(spec)  # type: ignore[attr-defined]
    command: app_commands.Command[Any, ..., Any] = app_commands.Command(
        name=name or spec.name, description=spec.summary, callback=callback
    )
    return app_commands.guild_only()(command)


def _choice_names(info: FieldInfo) -> dict[str, str]:
    extra = info.json_schema_extra
    names = extra.get(CHOICE_NAMES_KEY) if isinstance(extra, dict) else None
    return {str(k): str(v) for k, v in names.items()} if isinstance(names, dict) else {}


def _choices(spec: OperationSpec[Any]) -> dict[str, list[app_commands.Choice[str]]]:
    """The choices of the Literal fields that name their words (CHOICE_NAMES_KEY); the others
    discord.py makes from the Literal, each value its own name."""
    made: dict[str, list[app_commands.Choice[str]]] = {}
    for name, info in spec.request.model_fields.items():
        if names := _choice_names(info):
            made[name] = [app_commands.Choice(name=shown, value=v) for v, shown in names.items()]
    return made
