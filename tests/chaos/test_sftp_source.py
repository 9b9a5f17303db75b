"""Exactly once with the log read over SFTP: mcsim as its own process, its log followed from a
real OpenSSH server (tests/chaos/sftp_rig.py), SIGKILL and restart. Every run is counted in the
server's own logs."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.background.crash_guard import ALERT_TYPE
from tests.chaos.rig import Trial, run_trial

pytestmark = pytest.mark.slow  # kills and restarts a server and its bot, ~10 s


async def test_tasks_run_after_a_save_all_run_once_after_sigkill_with_the_log_over_sftp(
    tmp_path: Path,
) -> None:
    # 8 tasks queued in the save; all 8 run; SIGKILL about a second later (300 ticks at 200/s)
    trial = Trial(game=8, save="save-all", save_at=190, kill_at=500, source="sftp")
    outcome = await run_trial(tmp_path, trial)
    assert outcome.saved == set(outcome.runs)
    assert outcome.ran_before_kill == {f"g{i}": 1 for i in range(8)}
    assert outcome.runs == {f"g{i}": 1 for i in range(8)}, outcome.runs
    restored = [a for a in outcome.alerts if a.type == ALERT_TYPE]
    assert len(restored) == 1, outcome.alerts
    listed = " ".join(str(v) for v in restored[0].details.values())
    assert all(f"g{i}" in listed for i in range(8)), listed
