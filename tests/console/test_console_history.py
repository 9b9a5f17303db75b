"""The newcomer's steps in the console on the embedded world: `/schedule run:... when:in 30s`,
quit, come back after the run's time, start again: the run happens once, late, and `/history`
says it ran, with its lateness. The wall clock is the system's shifted by the minutes the bot
was away (the bot reads it through bot.times.clock.SystemClock), so nothing waits them."""

from __future__ import annotations

import io
import sqlite3
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.testkit.harness import make_settings
from bot.times.clock import SystemClock
from console.front import main
from tests.fixtures import said_in_logs


class LinesAfter(io.StringIO):
    """Console input whose first line is read once `ready()` holds (bounded): a person who
    types once the run has happened."""

    def __init__(self, text: str, ready: object, limit: float = 30.0) -> None:
        super().__init__(text)
        self.ready, self.limit, self.waited = ready, limit, False

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        if not self.waited:
            self.waited = True
            deadline = time.monotonic() + self.limit
            while not self.ready() and time.monotonic() < deadline:  # type: ignore[operator]
                time.sleep(0.05)
        return super().readline(size)


def ran(data: Path) -> bool:
    """The bot's record holds a run of `late` that is over (not handed over, not queued)."""
    try:
        with sqlite3.connect(data / "bot.sqlite3") as db:
            rows = db.execute("SELECT outcome FROM schedule_runs").fetchall()
    except sqlite3.Error:
        return False
    return bool(rows) and rows[0][0] not in ("sending", "queued")


def test_a_run_while_the_console_was_closed_is_in_its_history(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    away = timedelta(0)
    monkeypatch.setattr(SystemClock, "now", lambda self: datetime.now(UTC) + away)
    settings = make_settings(
        tmp_path,
        admin_role_ids=[],
        moderator_role_ids=[],
        admin_user_ids=[],
        audit_channel_id=None,
        log_poll_interval=0.05,
    )
    out = io.StringIO()
    stdin = io.StringIO("/schedule run:say x marks the spot when:in 30s id:late\nquit\n")
    assert main(settings, stdin=stdin, stdout=out) == 0
    assert "Planned late on embedded" in out.getvalue()
    away = timedelta(seconds=45)  # the console is closed 45 s: the run's time passes
    data = tmp_path / "data"
    out = io.StringIO()
    stdin = LinesAfter("/history id:late\nquit\n", lambda: ran(data))
    assert main(settings, stdin=stdin, stdout=out) == 0
    text = out.getvalue()
    assert said_in_logs(data / "world", "x marks the spot") == 1  # once
    [line] = [t for t in text.splitlines() if " s late" in t]
    assert " · ran · " in line and "queued" not in text, text
    late = float(line.split(" · ran · ")[1].split(" s late")[0])
    assert 15.0 <= late < 25.0  # 30 s planned, back after 45 s (and the start's seconds)
