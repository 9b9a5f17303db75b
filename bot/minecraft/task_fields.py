"""A task's fields and their limits, declared once. `/schedule`'s request on every face
(bot.operations.schedule), the plan file's entries (bot.calendar.plan_file), a Discord event's
start and end commands (bot.operations.discord_events) and the slash options' ranges
(cogs/schedule.py) take them from here, so a limit changed here changes on every face."""

from __future__ import annotations

__all__ = [
    "MAX_COMMAND",
    "MAX_ID",
    "MAX_INT",
    "MAX_PLAYER",
    "MAX_REQUIRE",
    "MAX_RETRY",
    "MAX_TIME_TEXT",
    "MAX_ZONE",
    "UNITS",
    "AfterWait",
    "Command",
    "IfNot",
    "MaxWait",
    "Period",
    "Player",
    "Require",
    "Retries",
    "TaskId",
    "Ticks",
    "TimeText",
    "Unit",
    "ZoneName",
]

from typing import Annotated, Final, Literal, get_args

from pydantic import Field

from bot.minecraft.pack_input import MAX_ID, MAX_INT

MAX_COMMAND: Final = 1400  # what one Discord option holds: the longest command a face takes
MAX_RETRY: Final = 1000
MAX_PLAYER: Final = 16  # Java's longest player name
MAX_ZONE: Final = 64  # an IANA zone name
MAX_TIME_TEXT: Final = 100  # `when`, `repeat`, `announce`, `max_wait`
MAX_REQUIRE: Final = 200

Command = Annotated[str, Field(min_length=1, max_length=MAX_COMMAND)]
TaskId = Annotated[str, Field(min_length=1, max_length=MAX_ID)]  # the pack's longest id
Ticks = Annotated[int, Field(ge=0, le=MAX_INT)]  # a delay in its unit; 0: the next tick
Period = Annotated[int, Field(ge=1, le=MAX_INT)]  # `every` and `retry_delay`, in ticks
Retries = Annotated[int, Field(ge=0, le=MAX_RETRY)]
Player = Annotated[str, Field(min_length=1, max_length=MAX_PLAYER)]
ZoneName = Annotated[str, Field(min_length=1, max_length=MAX_ZONE)]
TimeText = Annotated[str, Field(min_length=1, max_length=MAX_TIME_TEXT)]
# the pack's unit names; "day" is a real day, "game_day" one in-game day (24000 ticks)
Unit = Literal["tick", "second", "minute", "hour", "day", "game_day"]
UNITS: Final[tuple[str, ...]] = get_args(Unit)
# the conditions checked when a task is due (bot.minecraft.conditions)
Require = Annotated[str, Field(min_length=1, max_length=MAX_REQUIRE)]
IfNot = Literal["skip", "wait"]
MaxWait = Annotated[str, Field(min_length=1, max_length=MAX_TIME_TEXT)]
AfterWait = Literal["run", "skip"]
