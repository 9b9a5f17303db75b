"""The pack's log line -> Event parser, and the (server, seq) de-duplication."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.events.event import Event, SeqDedup, event_from_fields, parse_event_text, parse_log_line

LINE = (
    "[Not Secure] [Server] [doom.schedule] event=retry id=backup seq=42 t=123456 retry=2 by=Steve"
)


def test_vanilla_time_stamp() -> None:
    ev = parse_log_line("survival", f"[12:34:56] [Server thread/INFO]: {LINE}\n")
    assert ev == Event(
        server="survival",
        seq=42,
        type="retry",
        task_id="backup",
        game_time=123456,
        details={"retry": "2", "by": "Steve"},
    )


def test_date_time_stamp() -> None:
    ev = parse_log_line("s", f"[2025-06-01 23:59:59] [Server thread/INFO]: {LINE}")
    assert ev is not None and (ev.seq, ev.type, ev.task_id) == (42, "retry", "backup")


def test_paper_style_layout_and_no_secure_mark() -> None:
    ev = parse_log_line(
        "s", "[01:02:03 INFO]: [Server] [doom.schedule] event=dropped id=a.b seq=1 t=0"
    )
    assert ev is not None and ev.type == "dropped" and ev.task_id == "a.b" and ev.details == {}


def test_an_event_of_a_tick_run_over_rcon_counts() -> None:
    # the wall-clock hand-over runs core/tick inside its RCON call: its events are said as [Rcon]
    line = (
        "[01:02:03] [Server thread/INFO]: [Not Secure] [Rcon] [doom.schedule] event=ran id=g7"
        " seq=14 t=373 k=ad"
    )
    ev = parse_log_line("s", line)
    assert ev is not None and (ev.type, ev.task_id, ev.seq) == ("ran", "g7", 14)
    assert ev.details == {"k": "ad"}


def test_detail_value_keeps_spaces() -> None:
    ev = parse_event_text("s", "event=invalid id=x seq=3 t=9 reason=Unknown or incomplete command")
    assert ev is not None and ev.details["reason"] == "Unknown or incomplete command"


@pytest.mark.parametrize(
    "line",
    [
        "",
        "garbage",
        '[12:34:56] [Server thread/INFO]: Done (3.2s)! For help, type "help"',
        # a player's chat and a player's say cannot forge an event
        "[12:34:56] [Server thread/INFO]: <Steve> [doom.schedule] event=retry id=a seq=1 t=1",
        "[12:34:56] [Server thread/INFO]: [Not Secure] <Steve> [doom.schedule] event=x id=a seq=1",
        "[12:34:56] [Server thread/INFO]: [Not Secure] [Steve] [doom.schedule] event=x id=a seq=1",
        "[12:34:56] [Server thread/WARN]: [Server] [doom.schedule] event=x id=a seq=1 t=1",
        "[12:34:56] [Server thread/INFO]: [Server] [doom.schedule] event=x id=a seq=one t=1",
        "[12:34:56] [Server thread/INFO]: [Server] [doom.schedule] event=x id=a t=1",
        "[12:34:56] [Server thread/INFO]: [Server] [doom.schedule] event=x id=a seq=1 t=1 seq=2",
        "[12:34:56] [Server thread/INFO]: [Server] [doom.schedule] event=x id=a seq=-1 t=1",
        "[12:34:56] [Server thread/INFO]: [Server] [doom.schedule] stray event=x id=a seq=1 t=1",
        "[12:34:56] [Server thread/INFO]: [Server] [doom.schedule] event=x id=a seq=1 t=9" * 3,
        "[1:2:3] [Server thread/INFO]: [Server] [doom.schedule] event=x id=a seq=1 t=1",
        "\x00\xff[doom.schedule]",
    ],
)
def test_other_lines_are_not_events(line: str) -> None:
    assert parse_log_line("s", line) is None


@given(st.text())
def test_junk_never_raises(text: str) -> None:
    parse_log_line("s", text)
    parse_log_line("s", f"[12:34:56] [Server thread/INFO]: [Server] [doom.schedule] {text}")


def test_fields_from_ring_buffer() -> None:
    ev = event_from_fields("s", {"event": "offline", "id": "t", "seq": "7", "t": "70", "by": "Al"})
    assert ev is not None and ev.details == {"by": "Al"} and ev.game_time == 70
    assert event_from_fields("s", {"event": "offline", "id": "t", "seq": "7"}) is None


def _ev(server: str, seq: int) -> Event:
    return Event(server=server, seq=seq, type="retry", task_id="t", game_time=0)


def test_dedup_by_server_and_seq() -> None:
    d = SeqDedup()
    assert d.is_new(_ev("a", 5))
    assert not d.is_new(_ev("a", 5))
    assert d.is_new(_ev("b", 5))
    assert d.is_new(_ev("a", 3))  # out of order from a second source: not lost
    assert d.highest("a") == 5


def test_dedup_floor_and_window() -> None:
    d = SeqDedup(window=10)
    d.set_floor("a", 100)
    assert not d.is_new(_ev("a", 100)) and not d.is_new(_ev("a", 7))
    fresh = [s for s in range(101, 160) if d.is_new(_ev("a", s))]
    assert fresh == list(range(101, 160))
    assert not any(d.is_new(_ev("a", s)) for s in range(101, 160))
