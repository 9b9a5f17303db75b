"""The plan file's programs as YAML, over generated steps: whatever a command holds (` #`, a
colon, quotes, a leading `-`, a tab), the written file reads back as the
same program and is written again byte for byte; read again it is not refused (a command the
writer left unquoted with ` #` in it would be cut by YAML and refused)."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.calendar.plan_file import PlanDocument, ProgramEntry, dump, load
from bot.programs.model import Step

COMMANDS = st.text(
    alphabet="sayxenoultr0159. @#:-'\"!&*{}[],%|>?=~é中\t",
    min_size=1,
    max_size=30,
).filter(lambda c: c.strip() == c and c.strip())
OFFSETS = st.sampled_from(["0", "+0m", "-10m", "+5m", "90s", "1h 30m", "2d"])


@st.composite
def programs(draw: st.DrawFn) -> ProgramEntry:
    steps: list[Step] = []
    for number in range(1, draw(st.integers(1, 4)) + 1):
        given: dict[str, Any] = {"run": draw(COMMANDS), "at": draw(OFFSETS)}
        if number > 1 and draw(st.booleans()):
            given["after"] = draw(st.integers(1, number - 1))
            given["limit"] = draw(st.sampled_from([None, "30m", "2h"]))
            given["on_failure"] = draw(st.sampled_from(["stop", "skip", "continue"]))
        if draw(st.booleans()):
            given["require"] = draw(st.sampled_from(["players>=2", "empty", "online:Alex"]))
            given["if_not"] = draw(st.sampled_from([None, "skip"]))
        given["as_player"] = draw(st.sampled_from([None, "Alex", "Steve_2"]))
        steps.append(Step.model_validate({k: v for k, v in given.items() if v is not None}))
    name = draw(st.from_regex(r"[A-Za-z0-9_.+-]{1,12}", fullmatch=True))
    return ProgramEntry(name=name, steps=steps)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(programs(), min_size=1, max_size=3, unique_by=lambda p: p.name))
def test_written_programs_read_back_as_written(entries: list[ProgramEntry]) -> None:
    doc = PlanDocument(version=1, server="main", programs=entries)
    text = dump(doc)
    loaded = load(text)
    assert loaded == doc, text
    assert dump(loaded) == text
