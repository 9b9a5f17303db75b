"""A line parsed from its shape (mcsim.parse_shapes: list indexes and score-range minimums put
into the AST of a placeholder line) is the AST and gates mecha gives for the whole line, down to
every location; lines whose numbers sit elsewhere are parsed whole, and refused lines refused."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcsim import executor
from mcsim.errors import CommandSyntaxError
from mcsim.parse_shapes import parse_by_shape

TEMPLATES = [
    "data modify storage doom.schedule:out page append from storage doom.schedule:data queue[{0}]",
    "execute if score #q.d doom.schedule matches {0}.. run scoreboard players add #q.c x {1}",
    "execute if score #q.d doom.schedule matches {0}.. run return run data modify storage a:b"
    " queue[{1}].n set from storage a:c hex[{0}]",
    "data get storage a:b list[{0}][{1}].x[{0}]",
    "execute if score a b matches {0}..{1} run say x",  # a range with a maximum: parsed whole
    'say queue[{0}] matches {1}.. "[{0}]"',  # text, not an index: parsed whole
    'data modify storage a:b x set value "[{0}]"',  # inside a quoted string
    'tellraw @a[limit={0}] {{"text":"[{1}]"}}',
    "data get storage a:b list[{0}]x",  # refused whole
    "scoreboard players set x y {0}",  # nothing to patch
]


def whole(text: str) -> tuple[str, tuple[object, ...]] | str:
    try:
        ast, gates = executor._parse_command(text)
    except CommandSyntaxError as e:
        return f"refused: {e}"
    return ast.dump(), gates


def via_parse_line(text: str) -> tuple[str, tuple[object, ...]] | str:
    try:
        ast, gates = executor.parse_line(text)
    except CommandSyntaxError as e:
        return f"refused: {e}"
    return ast.dump(), gates


numbers = st.one_of(st.integers(0, 12), st.integers(0, 10**9 - 1)).map(str)


@settings(max_examples=150, deadline=None)
@given(template=st.sampled_from(TEMPLATES), a=numbers, b=numbers)
def test_a_line_from_its_shape_is_the_line_mecha_parses(template: str, a: str, b: str) -> None:
    text = template.format(a, b)
    assert via_parse_line(text) == whole(text)


@pytest.mark.parametrize(
    "text",
    [
        "data get storage a:b queue[007]",  # a leading zero: mecha reads 7
        "data get storage a:b queue[-3]",
        "data get storage a:b queue[9999999999]",  # past an int
        "execute if score a b matches -4.. run say x",
        "execute if score a b matches 0.. run say x",
    ],
)
def test_numbers_the_shapes_leave_alone_parse_as_before(text: str) -> None:
    assert via_parse_line(text) == whole(text)


def test_lines_of_one_shape_share_one_parse() -> None:
    parsed: list[str] = []

    def parse(text: str) -> tuple[object, tuple[object, ...]]:
        parsed.append(text)
        return executor._parse_command(text)

    line = "data modify storage s:t out append from storage s:t queue[{}].deep[{}]"
    for i in range(50):
        found = parse_by_shape(line.format(i + 100, i), parse)  # type: ignore[arg-type]
        assert found is not None
        assert found[0].dump() == executor._parse_command(line.format(i + 100, i))[0].dump()
    # one parse for each length of the two numbers (3+2 digits, 3+1), not one per line
    assert len(parsed) == 2, parsed
    assert parse_by_shape("say no numbers in brackets", parse) is None
