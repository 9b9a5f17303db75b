"""What a moderator reads when a plan file or a task's command is refused: the key or word
named in their terms, what is allowed, and the nearest valid word; no library phrasing."""

from __future__ import annotations

import pytest

from bot import errors
from bot.calendar import plan_file
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
