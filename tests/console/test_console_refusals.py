"""Refusals typed in the console are said in the moderator's words: the option named, what it
allows, the nearest valid word; never pydantic's or a parser's phrasing."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from bot.testkit.harness import Harness, make_settings
from console.front import main
from console.session import parse_line
from tests.console.typed import typed

LIBRARY_WORDS = ("Input should be", "Extra inputs are not permitted", "Expected literal")


async def test_a_value_out_of_range_names_the_option_and_its_range(bare: Harness) -> None:
    text = await typed(bare.bot.ops, "/schedule run:say x time:-5 unit:second\n")
    assert "time must be a whole number from 0 to 2,147,483,647, not -5." in text, text
    assert not any(words in text for words in LIBRARY_WORDS), text


async def test_a_time_without_a_unit_is_refused_with_the_choices(bare: Harness) -> None:
    text = await typed(bare.bot.ops, "/schedule run:say x time:5\n")
    assert "time needs a unit: one of tick, second, minute, hour, day, game_day" in text, text


@pytest.mark.parametrize(
    ("line", "said"),
    [
        # an option the command lacks is not swallowed by the choice before it
        (
            "/schedule run:say x time:5 unit:second colour:red",
            r"^unknown option colour \(options: run, require, ",
        ),
        ("/schedule run:say x time:5 colour:red unit:second", r"^unknown option colour \("),
        ("/schedule run:say x time:5 unit:second unt:tick", r"did you mean unit\?$"),
        ("/schedule run:say x id:a retry:2 colr:red", r"^unknown option colr \("),
    ],
)
async def test_an_unknown_option_after_a_closed_value_is_named(
    bare: Harness, line: str, said: str
) -> None:
    with pytest.raises(ValueError, match=said):
        parse_line(line, bare.bot.ops.registry)


def test_a_deny_list_refusal_says_which_setting_allows_it(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, admin_role_ids=[], moderator_role_ids=[], admin_user_ids=[])
    out = io.StringIO()
    lines = io.StringIO("/schedule run:stop time:5 unit:second\nquit\n")
    assert main(settings, stdin=lines, stdout=out) == 0  # on the embedded server
    text = out.getvalue()
    assert "stop is on this server's deny-list." in text, text
    assert "taking it out of DOOM_DENY_COMMANDS" in text, text
    assert "DOOM_SERVERS__0__ALLOW_COMMANDS=stop" in text, text
