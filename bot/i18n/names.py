"""The names a person types (a command, an option, a choice) in their language: each is looked
up under a context of its own (a command called "list" is not the word "list" in a sentence),
and only a name a command line can hold is used (Discord's rule, which the console keeps too:
letters of any script, digits, - and _, 1 to 32, lowercase where the script has case)."""

from __future__ import annotations

__all__ = ["CHOICE_NAME", "COMMAND_NAME", "NAME_PATTERN", "OPTION_NAME", "shown", "valid_name"]

import re

from bot import i18n

# msgctxt of each kind of name; descriptions are sentences and need none
COMMAND_NAME = "slash command name"
OPTION_NAME = "slash option name"
CHOICE_NAME = "slash option choice"
NAME_PATTERN = re.compile(r"^[-_\w]{1,32}$")


def valid_name(name: str) -> bool:
    """A name Discord accepts: the pattern, and lowercase where the script has case."""
    return bool(NAME_PATTERN.fullmatch(name)) and name == name.lower()


def shown(context: str, name: str) -> str:
    """`name` in the current language under `context`; itself where there is no translation
    a command line can hold (a choice may be any text)."""
    found = i18n.pgettext(context, name)
    if context == CHOICE_NAME or valid_name(found):
        return found
    return name
