"""Command, option and choice names and descriptions in the reader's Discord language.

discord.py passes every name, description and choice of the tree through the tree's
:class:`~discord.app_commands.Translator` when it builds the payload it syncs (each is a
``locale_str`` because commands are made with ``auto_locale_strings``), once per Discord locale;
Discord then shows each reader their client's language. So the cogs' decorators stay as they
are: their English texts are the message ids, and ``python -m bot.catalogs update`` reads them from
the tree itself (:func:`tree_messages`).

Names are looked up under a context (a command called "list" is not the word "list" in an
embed) and only a name Discord accepts is returned: lowercase, 1-32 characters of letters,
digits, ``-`` and ``_``; a description is cut to Discord's 100 characters.
"""

from __future__ import annotations

__all__ = [
    "CHOICE_NAME",
    "COMMAND_NAME",
    "CONTEXTS",
    "NAME_PATTERN",
    "OPTION_NAME",
    "DoomTranslator",
    "TreeMessage",
    "shown_name",
    "shown_word",
    "tree_messages",
    "valid_name",
]

import logging
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import discord
from discord import app_commands
from discord.app_commands import TranslationContextLocation as Where

from bot import i18n
from bot.i18n.names import CHOICE_NAME, COMMAND_NAME, NAME_PATTERN, OPTION_NAME, valid_name

log = logging.getLogger(__name__)

CONTEXTS: dict[Where, str] = {
    Where.command_name: COMMAND_NAME,
    Where.group_name: COMMAND_NAME,
    Where.parameter_name: OPTION_NAME,
    Where.choice_name: CHOICE_NAME,
}
MAX_DESCRIPTION = 100
MAX_CHOICE_NAME = 100


class DoomTranslator(app_commands.Translator):
    """Looks each tree string up in the catalog of the Discord locale; None when there is none."""

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        target = i18n.negotiate(locale.value)
        if target is None or target == i18n.DEFAULT_LOCALE:
            return None  # English is the source; other languages have no catalog yet
        catalog = i18n.translations(target)
        where = CONTEXTS.get(context.location)
        message = string.message
        text = catalog.pgettext(where, message) if where else catalog.gettext(message)
        if text == message:
            return None  # untranslated: Discord shows the English text
        if context.location in (Where.command_name, Where.group_name, Where.parameter_name):
            if not valid_name(text):
                log.warning("%s: %r is not a name Discord accepts; English is used", target, text)
                return None
            return text
        limit = MAX_CHOICE_NAME if context.location is Where.choice_name else MAX_DESCRIPTION
        return text[:limit]


def shown_word(command: app_commands.Command[Any, ..., Any] | app_commands.Group) -> str:
    """A command's own name (a subcommand's last word) as the translator gives it to Discord in
    the current language; English where there is no translation Discord accepts."""
    shown = i18n.pgettext(COMMAND_NAME, command.name)
    return shown if valid_name(shown) else command.name


def shown_name(command: app_commands.Command[Any, ..., Any] | app_commands.Group) -> str:
    """A command's full name as Discord shows it in the current language: each word of a
    group's subcommand looked up on its own ("event cancel" -> "活动 取消")."""
    words: list[str] = []
    node: app_commands.Command[Any, ..., Any] | app_commands.Group | None = command
    while node is not None:
        words.append(shown_word(node))
        node = node.parent
    return " ".join(reversed(words))


@dataclass(frozen=True, slots=True)
class TreeMessage:
    """One translatable string of the command tree, where extraction found it."""

    message: str
    context: str | None
    where: str  # "/schedule unit", for the translators' comment


def tree_messages(tree: app_commands.CommandTree[Any]) -> Iterator[TreeMessage]:
    """Every name, description and choice name of the tree's commands, as the translator sees
    them."""
    for command in tree.walk_commands():
        path = f"/{command.qualified_name}"
        yield TreeMessage(command.name, CONTEXTS[Where.command_name], path)
        yield TreeMessage(command.description, None, path)
        if not isinstance(command, app_commands.Command):
            continue
        for param in command.parameters:
            where = f"{path} {param.name}"
            yield TreeMessage(param.name, CONTEXTS[Where.parameter_name], where)
            if param.description and param.description != "…":
                yield TreeMessage(str(param.description), None, where)
            for choice in param.choices:
                yield TreeMessage(choice.name, CONTEXTS[Where.choice_name], where)
