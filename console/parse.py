"""Reading a console line as a slash command: the command, its options and their values.

``/schedule run:say hi time:5 unit:second`` -> ``("schedule", {"run": "say hi", ...})``, in
English or the console's language, the way Discord's client would fill in the options.
"""

from __future__ import annotations

__all__ = [
    "find_command",
    "one_line",
    "option_marker",
    "options_of",
    "parse_line",
    "parse_value",
]

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.i18n import _, pgettext, refusals
from bot.localdiscord.http_session import LocalFile
from bot.slash.translator import CHOICE_NAME, COMMAND_NAME, OPTION_NAME, shown_word

if TYPE_CHECKING:
    from bot.app import DoomBot


def find_command(line: str, bot: DoomBot) -> tuple[app_commands.Command[Any, ..., Any], str]:
    """The command a line names (a group's subcommand too: ``/event create ...``) and the rest
    of the line. Raises ValueError with a sentence."""
    name, _sep, rest = line.strip().removeprefix("/").partition(" ")
    cmd: object = bot.tree.get_command(name) or next(
        (c for c in bot.tree.get_commands() if pgettext(COMMAND_NAME, c.name) == name), None
    )
    while isinstance(cmd, app_commands.Group):  # `/event create name:...`: a group's subcommand
        sub, _sep, rest = rest.strip().partition(" ")
        child = cmd.get_command(sub) or next(
            (c for c in cmd.commands if pgettext(COMMAND_NAME, c.name) == sub), None
        )
        if child is None:
            subs = ", ".join(shown_word(c) for c in cmd.commands)
            raise ValueError(_("/{name} needs one of: {subs}", name=name, subs=subs))
        name, cmd = f"{name} {sub}", child
    if not isinstance(cmd, app_commands.Command):
        raise ValueError(_("unknown command /{name}: try /help", name=name))
    return cmd, rest


def options_of(cmd: app_commands.Command[Any, ..., Any]) -> dict[str, app_commands.Parameter]:
    """A command's options by name, and by the name in the console's language too."""
    params = {p.name: p for p in cmd.parameters}
    return params | {pgettext(OPTION_NAME, p.name): p for p in cmd.parameters}


def option_marker(params: dict[str, app_commands.Parameter]) -> re.Pattern[str]:
    """Where an option starts: one of these names and a colon, at the start or after a space."""
    return re.compile(r"(?:^|\s)(" + "|".join(map(re.escape, params)) + r"):")


# a word and a colon where an option could start: `tme:5`, not `minecraft:stone`'s second half
# or a JSON key (`{"text":`), which follow no space
_WORD_COLON = re.compile(r"(?:^|(?<=\s))([^\W\d]\w*):")


def _near_option(word: str, names: list[str]) -> str | None:
    """The option name ``word`` is a typo of (refusals.nearest), never a 2-letter one such as
    ``at``, which too many words are near."""
    return refusals.nearest(word, [n for n in names if len(n) > 2])


def _unknown_option(word: str, names: list[str]) -> ValueError:
    """`word:` names no option: the nearest one when it is a typo of one, else every name."""
    near = _near_option(word, names)
    if near is not None:
        return ValueError(
            _("unknown option {option}: did you mean {suggestion}?", option=word, suggestion=near)
        )
    return ValueError(
        _("unknown option {option} (options: {names})", option=word, names=", ".join(names))
    )


def _refuse_unknown_options(rest: str, params: dict[str, app_commands.Parameter]) -> None:
    """A `name:` that is no option but nearly one is a typo, not part of the value before it:
    `run:say hi tme:5` would otherwise run `say hi tme:5` with no time. Raises ValueError."""
    names = list(params)
    for match in _WORD_COLON.finditer(rest):
        word = match.group(1)
        if word not in params and _near_option(word, names) is not None:
            raise _unknown_option(word, names)


# options whose value is one word from a closed set: a `name:` inside one is an option
_CLOSED = frozenset(
    {
        discord.AppCommandOptionType.integer,
        discord.AppCommandOptionType.number,
        discord.AppCommandOptionType.boolean,
    }
)


def _refuse_option_in_value(
    text: str, param: app_commands.Parameter, cmd: app_commands.Command[Any, ..., Any]
) -> None:
    """`unit:second colour:red`: a choice or a number cannot hold ` colour:`, so it is an
    option the command does not have, not part of the value. Raises ValueError."""
    if not param.choices and param.type not in _CLOSED:
        return
    found = _WORD_COLON.search(text)
    if found is None or found.start() == 0:
        return
    raise _unknown_option(found.group(1), [p.name for p in cmd.parameters])


def parse_line(line: str, bot: DoomBot) -> tuple[str, dict[str, object]]:
    """``/schedule run:say hi time:5 unit:second`` -> ("schedule", {"run": "say hi", ...}).

    An option's value runs up to the next ``name:`` of an option that command has, so values may
    hold spaces and colons (``run:tellraw @a {"text":"x"}``). Raises ValueError with a sentence.
    Names and choices may also be written as the console's language names them (``/定时 命令:...``).
    """
    cmd, rest = find_command(line, bot)
    name = cmd.qualified_name  # "event create" for a group's subcommand
    params = options_of(cmd)
    values: dict[str, object] = {}
    if not params:
        if rest.strip():
            raise ValueError(_("/{name} takes no options", name=name))
        return name, values
    _refuse_unknown_options(rest, params)
    found = list(option_marker(params).finditer(rest))
    before = rest[: found[0].start()] if found else rest
    if (first := _WORD_COLON.match(before.strip())) is not None:
        raise _unknown_option(first.group(1), [p.name for p in cmd.parameters])
    if before.strip():
        raise ValueError(
            _(
                "write options as name:value (options: {names})",
                names=", ".join(p.name for p in cmd.parameters),
            )
        )
    for i, match in enumerate(found):
        end = found[i + 1].start() if i + 1 < len(found) else len(rest)
        param = params[match.group(1)]
        text = rest[match.end() : end].strip()
        _refuse_option_in_value(text, param, cmd)
        values[param.name] = parse_value(param, text)
    missing = [p.name for p in cmd.parameters if p.required and p.name not in values]
    if missing:
        raise ValueError(_("/{name} needs {options}", name=name, options=", ".join(missing)))
    return name, values


def parse_value(param: app_commands.Parameter, text: str) -> object:
    """An option's typed text as the value Discord would send. Raises ValueError."""
    for choice in param.choices:
        shown = pgettext(CHOICE_NAME, choice.name).lower()
        if text.lower() in (choice.name.lower(), str(choice.value).lower(), shown):
            return choice.value
    if param.choices:
        raise ValueError(
            _(
                "{option} is one of {choices}",
                option=param.name,
                choices=", ".join(c.name for c in param.choices),
            )
        )
    try:
        if param.type is discord.AppCommandOptionType.integer:
            return int(text)
        if param.type is discord.AppCommandOptionType.number:
            return float(text)
    except ValueError:
        raise ValueError(
            _("{option} must be a number, not '{text}'", option=param.name, text=text)
        ) from None
    if param.type is discord.AppCommandOptionType.boolean:
        return text.lower() in ("true", "yes", "1", "on")
    if param.type is discord.AppCommandOptionType.attachment:
        return _attached(param.name, text)
    return text


def _attached(option: str, text: str) -> LocalFile:
    """An attachment option in the console is the path of a file on this machine."""
    path = Path(text).expanduser()
    try:
        return LocalFile(path.name, path.read_bytes())
    except OSError as exc:
        raise ValueError(
            _("{option}: cannot read {file}: {error}", option=option, file=text, error=exc.strerror)
        ) from None


_BREAKS = re.compile("[\r\n\v\f\x1c\x1d\x1e\x85\u2028\u2029]")


def one_line(raw: str) -> str:
    """The command on a line as read, stripped; a line break inside it (a CR, a form feed, a
    Unicode line separator: what str.splitlines splits at) is refused, never taken as two."""
    line = raw.strip()
    found = _BREAKS.search(line)
    if found is not None:
        raise ValueError(
            _(
                "that line has a line break inside it ({char} at character {n}): type one "
                "command per line; nothing was run",
                char=repr(found.group()),
                n=found.start() + 1,
            )
        )
    return line
