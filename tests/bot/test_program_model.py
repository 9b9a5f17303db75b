"""bot.programs.model: a program's YAML steps read into checked steps, offsets read with
/schedule's durations, and every refusal naming the step and the field in a moderator's words."""

from __future__ import annotations

import pytest

from bot import errors
from bot.programs.model import (
    MAX_STEPS,
    check_name,
    offset_seconds,
    parse_steps,
    steps_json,
    steps_of_json,
)

GOOD = """
- run: say The event starts in 10 minutes
  at: -10m
- run: say go
  at: 0
- run: say round two
  at: +5m
  after: 2
  limit: 30m
  on_failure: skip
  require: players>=2
  if_not: wait
  max_wait: 5m
- {run: "give @a diamond", at: 1h 30m, as_player: Alex}
"""


def test_the_steps_are_read_and_kept_as_given() -> None:
    steps = parse_steps(GOOD)
    quoted = parse_steps("- run: \"scoreboard players add #w g 1\"  # a comment\n- {run: 'say #1'}")
    assert [s.run for s in quoted] == ["scoreboard players add #w g 1", "say #1"]
    assert [s.offset for s in steps] == [-600, 0, 300, 5400]
    assert steps[2].after == 2 and steps[2].on_failure == "skip" and steps[2].limit == "30m"
    assert steps[2].conditions() == {"require": "players>=2", "if_not": "wait", "max_wait": "5m"}
    assert steps[3].as_player == "Alex" and steps[0].on_failure == "continue"
    assert steps_of_json(steps_json(steps)) == steps


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("- run: say hi\n  at: soon", "Step 1: `at`: The offset 'soon' is not a duration"),
        (
            "- run: say hi\n- run: say 2\n  atx: 5m",
            "Step 2: Unknown field `atx`: did you mean `at`?",
        ),
        ("- run: say hi\n  after: 1", "Step 1: `after: 1` must name an earlier step"),
        ("- run: say hi\n- run: x\n  limit: 5m", "Step 2: `limit` is how long to wait"),
        ("- run: a\n- run: b\n  after: 1\n  on_failure: never", "Step 2: `on_failure` is one of"),
        ("- run: a\n  on_failure: stop", "Step 1: `on_failure` says what to do"),
        ("- run: a\n  if_not: wait", "Step 1: `if_not` says what to do when the conditions"),
        ("- at: 5m", "Step 1: `run` is missing"),
        ("- say hi", "Step 1 is not a mapping"),
        ("run: say hi", "The steps must be a list"),
        ("- run: [unclosed", "The steps are not readable YAML (line 1)"),
        ("- run: a\n  at: 8d", "Step 1: `at`: The offset '8d' is more than a week"),
        ("- at: 0\n  run: scoreboard players add #w g 1", "Line 2: YAML reads ` #` as the start"),
    ],
)
def test_a_bad_step_is_refused_naming_the_step_and_field(text: str, said: str) -> None:
    with pytest.raises(errors.ValidationError) as caught:
        parse_steps(text)
    assert str(caught.value.text).startswith(said), caught.value.text
    assert caught.value.field == "steps"


def test_limits() -> None:
    too_many = "".join(f"- run: say {n}\n" for n in range(MAX_STEPS + 1))
    with pytest.raises(errors.ValidationError, match=f"at most {MAX_STEPS} steps"):
        parse_steps(too_many)
    assert len(parse_steps(too_many[: too_many.index(f"- run: say {MAX_STEPS}")])) == MAX_STEPS
    assert offset_seconds("+1h 30m") == 5400 and offset_seconds("-5s") == -5
    assert offset_seconds("0") == 0
    assert check_name("evening_2.v+1") == "evening_2.v+1"
    for bad in ("two words", "", "x" * 41, "é"):
        with pytest.raises(errors.ValidationError):
            check_name(bad)
