r"""Checks and builds what the pack client sends, before any round trip.

Everything here is pure: ids, units, time ranges, retry ranges, the command text (one line,
no control characters) and the SNBT of the storage input, whose size is held to RCON's
1446-byte request cap. Limits are the pack's own (datapack/README.md, "Limits").

SNBT strings are written in double quotes escaping only `\\` and `"`: the one spelling both the
1.21.0-1.21.4 reader (which knows no other escape) and the 1.21.5+ reader accept, so any other
Unicode character goes through as itself.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from bot.errors import CommandTooLong, ValidationError, naming
from bot.i18n import Text, lazy
from bot.minecraft.rcon import MAX_COMMAND_BYTES

__all__ = [
    "MAX_INT",
    "MAX_PREFIX",
    "MAX_RUN",
    "UNITS",
    "InputValue",
    "RunTooLong",
    "TaskRequest",
    "check_executor",
    "check_id",
    "check_place",
    "check_player",
    "check_prefix",
    "check_run_text",
    "check_task_input",
    "check_ticks",
    "check_unit",
    "snbt_compound",
    "snbt_string",
    "task_input_command",
]

MAX_INT: Final = 2_147_483_647  # the pack's times are Ints; a due tick may not pass this
MAX_ID: Final = 64
MAX_PREFIX: Final = 54  # leaves room for the counter in a 64-character id
MAX_RUN: Final = 32_000
TASK_INPUT: Final = "data modify storage doom.schedule:in task set value "

UNITS: Final[Mapping[str, int]] = {
    **dict.fromkeys(("t", "tick", "ticks"), 1),
    **dict.fromkeys(("s", "second", "seconds"), 20),
    **dict.fromkeys(("m", "minute", "minutes"), 1200),
    **dict.fromkeys(("h", "hour", "hours"), 72_000),
    **dict.fromkeys(("d", "day", "days"), 1_728_000),
    **dict.fromkeys(("gd", "game_day", "game_days"), 24_000),
}

_ID_CHAR = re.compile(r"[A-Za-z0-9_.+\-]")
_PLAYER = re.compile(r"[A-Za-z0-9_]{1,16}")
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_NUM = r"~?-?[0-9]+(?:\.[0-9]+)?(?:[eE]-?[0-9]+)?"
# the `at` prefix the pack keeps for a task without executor (datapack/README.md, "A task"):
# only a dimension and numbers, so it can be put before `run` and change nothing else
_PLACE = re.compile(
    rf"in [a-z0-9_.-]+:[a-z0-9_./-]+(?: positioned {_NUM} {_NUM} {_NUM}| rotated {_NUM} {_NUM})*"
)


class RunTooLong(CommandTooLong):
    """The command to schedule makes the request larger than RCON accepts."""

    def __init__(self, size: int, limit: int, run_bytes: int) -> None:
        super().__init__(size, limit)
        over = size - limit
        self.args = (
            lazy(
                "The command to schedule is too long: with it the request to the pack is {size} "
                "bytes of UTF-8, over RCON's limit of {limit} bytes per request. Shorten the "
                "command by at least {over} bytes (it is {run_bytes} bytes now), or put it in a "
                "function and schedule `function <name>`.",
                size=size,
                limit=limit,
                over=over,
                run_bytes=run_bytes,
            ),
        )


def check_id(value: object, what: Text | None = None, limit: int = MAX_ID) -> str:
    """An id as the pack accepts it: 1-`limit` characters of `[A-Za-z0-9_.+-]`."""
    what = what if what is not None else lazy("task id")
    if not isinstance(value, str):
        raise ValidationError(
            lazy("The {what} must be text, not {type}.", what=what, type=type(value).__name__)
        )
    if not value:
        raise ValidationError(
            lazy("The {what} is empty; give 1 to {limit} characters.", what=what, limit=limit)
        )
    if len(value) > limit:
        raise ValidationError(
            lazy(
                "The {what} is {n} characters long; at most {limit} are allowed.",
                what=what,
                n=len(value),
                limit=limit,
            )
        )
    for i, ch in enumerate(value, 1):
        if not _ID_CHAR.fullmatch(ch):
            raise ValidationError(
                lazy(
                    "The {what} {id} has {char} at position {i}; ids use only letters A-Z a-z, "
                    "digits, '_', '.', '+' and '-'.",
                    what=what,
                    id=_show(value),
                    char=_char_name(ch),
                    i=i,
                )
            )
    return value


def check_prefix(value: object) -> str:
    return check_id(value, lazy("id prefix"), MAX_PREFIX)


def check_player(value: object) -> str:
    """A player name as vanilla allows it (1-16 of letters, digits, '_'): never a selector."""
    if not isinstance(value, str) or not _PLAYER.fullmatch(value):
        shown = _show(value) if isinstance(value, str) else type(value).__name__
        raise ValidationError(
            lazy(
                "{name} is not a player name: names are 1 to 16 letters, digits or '_' "
                "(selectors such as @a are not accepted here).",
                name=shown,
            )
        )
    return value


def check_executor(value: object) -> str:
    """A task's executor as the pack keeps it: a hyphenated lowercase UUID (`execute as` it)."""
    if not isinstance(value, str) or not _UUID.fullmatch(value):
        raise ValidationError(lazy("{value} is not an entity's UUID.", value=repr(value)[:80]))
    return value


def check_place(value: object) -> str:
    """A task's place (`in <dimension> positioned ... rotated ...`) as the pack keeps it."""
    if not isinstance(value, str) or not _PLACE.fullmatch(value):
        raise ValidationError(
            lazy("{value} is not a place the pack keeps.", value=repr(value)[:80])
        )
    return value


def check_unit(value: object) -> int:
    """The number of ticks in one `value`."""
    if isinstance(value, str) and value in UNITS:
        return UNITS[value]
    shown = _show(value) if isinstance(value, str) else type(value).__name__
    raise ValidationError(
        lazy(
            "{unit} is not a time unit; use one of t/tick/ticks, s/second/seconds, "
            "m/minute/minutes, h/hour/hours, d/day/days (real days) or gd/game_day/game_days.",
            unit=shown,
        )
    )


def check_ticks(
    value: object, what: Text, *, minimum: int = 0, unit_ticks: int = 1, unit: str = "t"
) -> int:
    """A whole number >= minimum whose value in ticks fits the pack's Int."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValidationError(
            lazy("{what} must be a whole number, not {value}.", what=what, value=_show(str(value)))
        )
    if value < minimum:
        if minimum == 0:
            raise ValidationError(
                lazy("{what} cannot be negative (got {value}).", what=what, value=value)
            )
        raise ValidationError(
            lazy(
                "{what} cannot be less than {minimum} (got {value}).",
                what=what,
                minimum=minimum,
                value=value,
            )
        )
    largest = MAX_INT // unit_ticks
    if value > largest:
        raise ValidationError(
            lazy(
                "{what} {value} {unit} is too large: the pack counts ticks in an Int, so at most "
                "{largest} {unit} ({max} ticks) can be given.",
                what=what,
                value=value,
                unit=unit,
                largest=largest,
                max=MAX_INT,
            )
        )
    return value


def check_run_text(run: object) -> str:
    """The command as the pack will run it: one line, no control characters, no leading `/`."""
    if not isinstance(run, str):
        raise ValidationError(
            lazy("The command must be text, not {type}.", type=type(run).__name__)
        )
    text = run[1:] if run.startswith("/") else run
    if not text.strip():
        raise ValidationError(lazy("The command is empty."))
    for i, ch in enumerate(text, 1):
        if ch in "\n\r\x0b\x0c\x85\u2028\u2029":
            raise ValidationError(
                lazy(
                    "The command has a line break at position {i}; a Minecraft command is one "
                    "line. Schedule each line as its own task, or put them in a function.",
                    i=i,
                )
            )
        category = unicodedata.category(ch)
        if category == "Cc":
            raise ValidationError(
                lazy(
                    "The command has the control character {code} at position {i}; commands "
                    "cannot carry control characters.",
                    code="U+" + format(ord(ch), "04X"),
                    i=i,
                )
            )
        if category == "Cs":
            raise ValidationError(
                lazy(
                    "The command has a lone surrogate ({code}) at position {i}; it is not "
                    "valid Unicode text.",
                    code="U+" + format(ord(ch), "04X"),
                    i=i,
                )
            )
    if text != text.strip():
        raise ValidationError(lazy("The command starts or ends with spaces; remove them."))
    if len(text) > MAX_RUN:
        raise ValidationError(
            lazy(
                "The command is {n} characters; the pack accepts at most {max}.",
                n=len(text),
                max=MAX_RUN,
            )
        )
    return text


def snbt_string(text: str) -> str:
    """`text` as a double-quoted SNBT string (only `\\` and `"` escaped)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


# a storage input value: a String, an Int, or a compound of them (a task's `cond`)
InputValue = str | int | Mapping[str, "InputValue"]


def snbt_compound(fields: Mapping[str, InputValue]) -> str:
    """`{k:v,...}` with str values as SNBT strings, ints as Ints and mappings as compounds
    (keys are plain names)."""
    parts = []
    for key, value in fields.items():
        if isinstance(value, Mapping):
            parts.append(f"{key}:{snbt_compound(value)}")
            continue
        if isinstance(value, bool) or not isinstance(value, int | str):
            raise TypeError(f"unsupported SNBT value for {key}: {value!r}")
        parts.append(f"{key}:{snbt_string(value) if isinstance(value, str) else value}")
    return "{" + ",".join(parts) + "}"


def task_input_command(fields: Mapping[str, InputValue], path: str = "task") -> str:
    """The `data modify storage doom.schedule:in <path> set value {...}` command, size-checked
    (`path`: `task` for submit, `staged.<key>` for submit_staged)."""
    command = TASK_INPUT.replace(" task ", f" {path} ") + snbt_compound(fields)
    size = len(command.encode("utf-8"))
    if size > MAX_COMMAND_BYTES:
        run = fields.get("run", "")
        raise RunTooLong(size, MAX_COMMAND_BYTES, len(str(run).encode("utf-8")))
    return command


@dataclass(frozen=True, slots=True)
class TaskRequest:
    """A game-time task's request as the pack client sends it, checked (PackClient.task_request):
    its request id, the command the task runs (as the pack will run it), the storage input's
    other fields, who runs it (`player`: a name or UUID the call runs `execute as`; None: the
    server) or where (`place`), and the input's command itself, size-checked."""

    req: str
    run: str
    fields: Mapping[str, InputValue]
    player: str | None
    place: str | None
    command: str

    def due_ticks(self, game_time: int, count: int) -> list[int]:
        """The game ticks its first `count` runs are due at, queued at `game_time`, as the pack
        counts them (datapack/README.md, on timing): the delay in ticks after it (or the tick
        `tick`; a tick already passed runs at the next one), then, with an interval, every
        interval after the first, anchored there."""
        ticks = UNITS[str(self.fields["unit"])]
        tick, delay = self.fields.get("tick"), self.fields.get("time")
        due = tick if isinstance(tick, int) else game_time
        if not isinstance(tick, int) and isinstance(delay, int):
            due += delay * ticks
        first = max(due, game_time + 1)
        interval = self.fields.get("interval")
        if not isinstance(interval, int):
            return [first][:count]
        step = interval * ticks
        # after a run at `first`, the next boundary of the grid anchored at `due` after it
        later = due + ((first - due) // step + 1) * step if first > due else due + step
        return [first, *(later + k * step for k in range(count - 1))][:count]


def _char_name(ch: str) -> Text:
    if ch == " ":
        return lazy("a space")
    if ch.isprintable():
        return f"{ch!r}"
    return f"U+{ord(ch):04X}"


def _show(text: str, limit: int = 40) -> str:
    shown = text if len(text) <= limit else text[: limit - 1] + "…"
    return repr(shown)


def check_task_input(
    command: str, task_id: str, retry: int, retry_delay: int, as_player: str | None
) -> str:
    """A task's own fields checked as the pack will take them, each error naming its field;
    the command's text as it will be sent."""
    with naming("id"):
        check_id(task_id)
    with naming("run"):
        text = check_run_text(command)
    with naming("retry"):
        check_ticks(retry, lazy("The number of retries"))
    with naming("retry_delay"):
        check_ticks(retry_delay, lazy("The retry delay"), minimum=1)
    with naming("as_player"):
        if as_player is not None:
            check_player(as_player)
    return text
