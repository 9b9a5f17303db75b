"""What a moderator reads when a plan file or a task's command is refused: the key or word
named in their terms, what is allowed, and the nearest valid word; no library phrasing."""

from __future__ import annotations

from typing import Annotated

import pytest
from annotated_types import Ge, Gt, Interval, Lt
from pydantic import BaseModel, ValidationError

from bot import errors
from bot.calendar import plan_file
from bot.i18n.refusals import explain
from bot.minecraft.command_check import CommandChecker

LIBRARY_WORDS = ("Input should be", "Extra inputs are not permitted", "Expected literal")


def _refusal(text: str) -> str:
    with pytest.raises(errors.ValidationError) as caught:
        plan_file.load(text)
    said = str(caught.value)
    assert not any(words in said for words in LIBRARY_WORDS), said
    return said


def test_a_mistyped_plan_key_is_named_with_the_key_it_nearly_is() -> None:
    said = _refusal(
        "version: 1\nserver: main\nplanned:\n"
        "  - {id: x, run: say x, when: '20:00'}\n"
        "  - {id: y, run: say y, when: '20:00', repat: 1d}\n"
    )
    assert said.startswith("The plan file's entry planned[2] (y): unknown key `repat`: ")
    assert "did you mean `repeat`?" in said and "(keys: id, run, when, repeat," in said


def test_a_plan_value_out_of_range_says_the_range() -> None:
    said = _refusal("version: 1\nserver: main\ntasks:\n  - {id: t, run: say t, time: -5}\n")
    assert said == (
        "The plan file's entry tasks[1] (t): `time` must be a whole number from 0 to "
        "2,147,483,647, not -5."
    )


@pytest.mark.parametrize(
    ("command", "said"),
    [
        ("sya hello", "Unknown command `sya`: did you mean `say`?"),
        ("execute as @a run sya hi", "Unknown command `sya`: did you mean `say`?"),
        ("xyzzy", "Unknown command `xyzzy`: this server's version has no such command"),
        ("time set dya", "`dya` does not fit here: did you mean `day`? (expected day, midnight"),
        ("execute as @a rn say x", "`rn` does not fit here: did you mean `run`?"),
        ("time", "The command ends too early: expected add, query, set"),
        ("give @a diamond 1 extra", "The command ends before `extra`: nothing may follow there"),
    ],
)
def test_a_command_that_does_not_parse_is_said_with_the_word_meant(command: str, said: str) -> None:
    with pytest.raises(errors.CommandParseError) as caught:
        CommandChecker(deny=[]).check(command)
    assert caught.value.message.startswith(said), caught.value.message
    assert not any(words in caught.value.message for words in LIBRARY_WORDS)


class _Limits(BaseModel):
    # an Interval names all four bounds, the unset ones None: they must not hide Ge(1)
    count: Annotated[int, Ge(1), Interval(le=10)] = 1
    every: Annotated[float, Gt(0)] = 1.0
    share: Annotated[float, Interval(gt=0, lt=1)] = 0.5
    level: Annotated[int, Gt(0), Lt(5)] = 1


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("count", 0, "`count` must be a whole number from 1 to 10, not 0."),
        ("count", 11, "`count` must be a whole number from 1 to 10, not 11."),
        # a number that need not be whole: above 0 is not "1 or more"
        ("every", -0.5, "`every` must be more than 0, not -0.5."),
        ("every", 0, "`every` must be more than 0, not 0."),
        ("share", 1.5, "`share` must be a number between 0 and 1, not 1.5."),
        ("level", 9, "`level` must be a whole number from 1 to 4, not 9."),
    ],
)
def test_a_bound_is_said_as_the_field_has_it(field: str, value: object, said: str) -> None:
    with pytest.raises(ValidationError) as caught:
        _Limits.model_validate({field: value})
    [error] = caught.value.errors()
    assert explain(error, _Limits) == said
