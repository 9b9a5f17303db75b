"""Any text in, the same text executed: the pack client's SNBT escaping, proven through mcsim.

The round trip goes the whole way: the text is put in a `data modify storage ... set value "..."`
command, that command is scheduled through the pack's storage input over TCP RCON, the game runs
it when due, and the stored value is compared with the text. The printed-SNBT reader is checked
against mcsim's vanilla printer on generated values.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.minecraft.command_rules import RUNNER_IDS, STRUCTURE_IDS
from bot.minecraft.pack_input import check_run_text, snbt_string
from bot.minecraft.snbt_text import SnbtSyntaxError, parse_printed_snbt
from mcsim.nbt import format_snbt, from_python, to_python
from tests.bot.pack_sim import AcceptAll, PackSim, running_sim

# Everything a one-line command can carry: no control characters, no line or paragraph
# separators (refused with a clear error, tested in test_hostile_inputs), no lone surrogates.
LINE_TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")), max_size=120
)
TRICKY = st.text(alphabet=st.sampled_from(list("\\\"' @a$(){}[]:;,§é☃𝄞")), max_size=60)


def not_a_refused_id(text: str) -> bool:
    """The checker refuses an NBT string naming a command or structure block, or with a
    `run_command` in it, whatever the command (its own tests show that); hypothesis draws such
    strings from the code's constants, and they are not what this round trip is about."""
    name = text.lower().removeprefix("minecraft:")
    return name not in RUNNER_IDS | STRUCTURE_IDS and "run_command" not in text.lower()


@pytest.fixture(scope="module")
def sim(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PackSim]:
    yield from running_sim(tmp_path_factory.mktemp("rt") / "world")


@pytest.fixture(scope="module")
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    loop = asyncio.new_event_loop()
    yield loop
    loop.close()


def round_trip(sim: PackSim, loop: asyncio.AbstractEventLoop, text: str, checker: bool) -> None:
    run = f"data modify storage doom.test:rt v set value {snbt_string(text)}"

    async def schedule() -> None:
        pack = sim.client() if checker else sim.client(checker=AcceptAll())
        try:
            task = await pack.schedule(run, 0, "t", "rt")
            assert task is not None and task.run == run  # stored as given ...
        finally:
            await pack.rcon.close()

    sim.server.run("data remove storage doom.test:rt v")
    loop.run_until_complete(schedule())
    sim.server.step(1)
    assert sim.server.storage("doom.test:rt").get("v") == text  # ... and executed as given
    assert sim.ids() == []


HYPO = settings(
    max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@pytest.mark.slow  # 50 round trips through mcsim
@HYPO
@given(text=st.one_of(LINE_TEXT, TRICKY))
def test_any_text_is_executed_exactly(
    sim: PackSim, loop: asyncio.AbstractEventLoop, text: str
) -> None:
    # the transport alone: every one-line Unicode text (the checker's own policy is stricter
    # about invisible characters, see the next test)
    round_trip(sim, loop, text, checker=False)


@pytest.mark.slow  # 50 round trips through mcsim
@HYPO
@given(text=st.one_of(TRICKY, LINE_TEXT.filter(str.isprintable).filter(not_a_refused_id)))
def test_printable_text_passes_the_checker_and_is_executed_exactly(
    sim: PackSim, loop: asyncio.AbstractEventLoop, text: str
) -> None:
    round_trip(sim, loop, text, checker=True)


@given(text=LINE_TEXT)
def test_run_text_check_accepts_every_line(text: str) -> None:
    stripped = text.strip()
    if stripped and not stripped.startswith("/"):
        assert check_run_text(stripped) == stripped


SNBT_VALUES = st.recursive(
    st.one_of(
        st.integers(-(2**31), 2**31 - 1),
        st.floats(allow_nan=False, allow_infinity=False, width=64),
        st.text(alphabet=st.characters(codec="utf-8"), max_size=20),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.text(min_size=1, max_size=8), inner, max_size=4),
    ),
    max_leaves=12,
)


@given(value=SNBT_VALUES)
def test_printed_snbt_reads_back(value: object) -> None:
    tag = from_python(value)
    assert parse_printed_snbt(format_snbt(tag)) == to_python(tag)


def test_printed_snbt_forms() -> None:
    text = "{a: 1b, b: [I; 1, -2], 'c d': \"x\\\\y\", e: 2.5f, f: -3L, g: [], h: {}, i: 1.0E10d}"
    assert parse_printed_snbt(text) == {
        "a": 1,
        "b": [1, -2],
        "c d": "x\\y",
        "e": 2.5,
        "f": -3,
        "g": [],
        "h": {},
        "i": 1e10,
    }
    assert parse_printed_snbt("'it\\'s \"q\"'") == 'it\'s "q"'
    assert parse_printed_snbt('"tab\\tnew\\nline \\u00e9 \\x41"') == "tab\tnew\nline é A"
    for bad in ("{a: 1", "[1 2]", '"open', "{a 1}", "1 2", '"\\q"'):
        with pytest.raises(SnbtSyntaxError):
            parse_printed_snbt(bad)
