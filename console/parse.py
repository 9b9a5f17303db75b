"""Reading a console line as an operation of the registry: the command, its options and their
values.

``/schedule run:say hi time:5 unit:second`` -> the `schedule` command and ``{"run": "say hi",
...}``: the same command and option names as the slash commands (bot.operations.registry), in
English or the console's language. An option's value runs up to the next ``name:`` of an option
that command has, so values may hold spaces and colons (``run:tellraw @a {"text":"x"}``). Two
commands are the console's own: ``/help`` and ``/dashboard``.
"""

from __future__ import annotations

__all__ = [
    "OWN",
    "Command",
    "commands",
    "find_command",
    "one_line",
    "option_marker",
    "options_of",
    "parse_line",
    "parse_value",
]

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.i18n import N_, _, refusals
from bot.i18n.names import CHOICE_NAME, COMMAND_NAME, OPTION_NAME, shown
from bot.operations.registry import OperationSpec, Option, Registry, options

# the console's own commands, with what they do (not operations: no server, no audit)
OWN = {
    "help": N_("What each command does."),
    "dashboard": N_("A one-time link that logs you in to the web dashboard."),
}


@dataclass(frozen=True)
class Command:
    """A command the console takes: an operation (`spec`), or one of its own (`spec` None)."""

    name: str  # "plan export" for a group's subcommand
    summary: str
    options: tuple[Option, ...] = ()
    spec: OperationSpec[Any] | None = None

    @property
    def shown(self) -> str:
        """The name in the console's language, a word at a time ("event cancel" -> "活动 取消")."""
        return " ".join(shown(COMMAND_NAME, w) for w in self.name.split())


def commands(registry: Registry) -> list[Command]:
    """Every command the console takes: the registry's operations and its own."""
    found = [Command(s.name, s.summary, tuple(options(s)), s) for s in registry]
    return found + [Command(name, summary) for name, summary in OWN.items()]


def _named(word: str, names: Iterable[str]) -> str | None:
    """The name `word` is, in English or the console's language."""
    for name in names:
        if word in (name, shown(COMMAND_NAME, name)):
            return name
    return None


def find_command(line: str, registry: Registry) -> tuple[Command, str]:
    """The command a line names (a group's subcommand too: ``/event create ...``) and the rest
    of the line. Raises ValueError with a sentence."""
    word, _sep, rest = line.strip().removeprefix("/").partition(" ")
    every = {c.name: c for c in commands(registry)}
    heads = list(dict.fromkeys(n.split()[0] for n in every))
    head = _named(word, heads)
    if head is None:
        raise ValueError(_("unknown command /{name}: try /help", name=word))
    if head in every:
        return every[head], rest
    subs = [n.split()[1] for n in every if n.split()[0] == head and " " in n]
    sub_word, _sep, rest = rest.strip().partition(" ")
    sub = _named(sub_word, subs)
    if sub is None:
        said = ", ".join(shown(COMMAND_NAME, s) for s in subs)
        raise ValueError(_("/{name} needs one of: {subs}", name=word, subs=said))
    return every[f"{head} {sub}"], rest


def options_of(command: Command) -> dict[str, Option]:
    """A command's options by name, and by the name in the console's language too."""
    found = {o.name: o for o in command.options}
    return found | {shown(OPTION_NAME, o.name): o for o in command.options}


def option_marker(params: dict[str, Option]) -> re.Pattern[str]:
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


def _refuse_unknown_options(rest: str, params: dict[str, Option]) -> None:
    """A `name:` that is no option but nearly one is a typo, not part of the value before it:
    `run:say hi tme:5` would otherwise run `say hi tme:5` with no time. Raises ValueError."""
    names = list(params)
    for match in _WORD_COLON.finditer(rest):
        word = match.group(1)
        if word not in params and _near_option(word, names) is not None:
            raise _unknown_option(word, names)


def _refuse_option_in_value(text: str, option: Option, command: Command) -> None:
    """`unit:second colour:red`: a choice or a number cannot hold ` colour:`, so it is an
    option the command does not have, not part of the value. Raises ValueError."""
    if not option.choices and option.kind not in (int, float, bool):
        return
    found = _WORD_COLON.search(text)
    if found is None or found.start() == 0:
        return
    raise _unknown_option(found.group(1), [o.name for o in command.options])


def parse_line(line: str, registry: Registry) -> tuple[Command, dict[str, object]]:
    """``/schedule run:say hi time:5 unit:second`` -> (the schedule command, {"run": "say hi",
    ...}), the values by their request field. Raises ValueError with a sentence. Names and
    choices may also be written as the console's language names them (``/定时 命令:...``)."""
    command, rest = find_command(line, registry)
    params = options_of(command)
    values: dict[str, object] = {}
    if not params:
        if rest.strip():
            raise ValueError(_("/{name} takes no options", name=command.name))
        return command, values
    _refuse_unknown_options(rest, params)
    found = list(option_marker(params).finditer(rest))
    before = rest[: found[0].start()] if found else rest
    names = [o.name for o in command.options]
    if (first := _WORD_COLON.match(before.strip())) is not None:
        raise _unknown_option(first.group(1), names)
    if before.strip():
        raise ValueError(
            _("write options as name:value (options: {names})", names=", ".join(names))
        )
    for i, match in enumerate(found):
        end = found[i + 1].start() if i + 1 < len(found) else len(rest)
        option = params[match.group(1)]
        text = rest[match.end() : end].strip()
        _refuse_option_in_value(text, option, command)
        values[option.field] = parse_value(option, text)
    missing = [o.name for o in command.options if o.required and o.field not in values]
    if missing:
        raise ValueError(
            _("/{name} needs {options}", name=command.name, options=", ".join(missing))
        )
    return command, values


def parse_value(option: Option, text: str) -> object:
    """An option's typed text as the value its request takes. Raises ValueError."""
    for choice in option.choices:
        if text.lower() in (choice.lower(), shown(CHOICE_NAME, choice).lower()):
            return choice
    if option.choices:
        raise ValueError(
            _(
                "{option} is one of {choices}",
                option=option.name,
                choices=", ".join(option.choices),
            )
        )
    try:
        if option.kind is int:
            return int(text)
        if option.kind is float:
            return float(text)
    except ValueError:
        raise ValueError(
            _("{option} must be a number, not '{text}'", option=option.name, text=text)
        ) from None
    if option.kind is bool:
        return text.lower() in ("true", "yes", "1", "on")
    if option.file:
        return _read(option.name, text)
    return text


def _read(option: str, text: str) -> str:
    """A file option in the console is the path of a file on this machine: its text."""
    path = Path(text).expanduser()
    try:
        return path.read_bytes().decode("utf-8", errors="replace")
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
