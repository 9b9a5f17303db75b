"""Exactly once across the bot's own faults, in both process layouts (the console, `serve` with
its API): SIGKILL of the bot process (at a random moment
around the wall-clock hand-overs, and right after a hand-over's submit ran on the server) and
the RCON connection cut at random moments. Every run is counted in the server's own logs: each
acknowledged task and row runs once, or a row the restarted bot could no longer hand over in
time is marked missed and alerted; nothing runs twice, and no /schedule is left as "may or may
not have run"."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.chaos.bot_rig import KillOutcome, KillTrial, run_kill_trial
from tests.chaos.rcon_rig import CutOutcome, CutTrial, run_cut_trial

pytestmark = pytest.mark.slow


def check_kill(outcome: KillOutcome) -> None:
    assert outcome.lost == [], f"never ran: {outcome.lost} (rows: {outcome.notes})"
    assert outcome.twice == [], f"ran twice: {outcome.twice}"
    unasked = [
        t
        for t, n in outcome.runs.items()
        if n and t not in outcome.acknowledged | outcome.in_flight
    ]
    assert unasked == [], f"ran without a /schedule: {unasked}"
    missed = {w for w, o in outcome.wall_outcomes.items() if "missed" in o}
    assert missed <= outcome.alerted, missed - outcome.alerted  # never silently


@pytest.mark.parametrize(
    ("down", "max_late"), [(0.3, 60.0), (6.0, 3.0)], ids=["back-at-once", "back-after-max-late"]
)
async def test_a_bot_killed_right_after_a_hand_over_reached_the_server_runs_it_once(
    tmp_path: Path, down: float, max_late: float
) -> None:
    # SIGKILL once the server ran a hand-over's submit, its answer held back: the bot's record
    # still says "sending"; the restarted bot finds the server's mark and does not send it
    # again, even when it is back after max_late (the run was handed over in time). Rows due
    # at the same moment may say "sending" too while they wait for the connection: nothing of
    # theirs reached the server, so back after max_late they are missed (check_kill: alerted)
    outcome = await run_kill_trial(tmp_path, KillTrial(kill_at=None, down=down, max_late=max_late))
    check_kill(outcome)
    assert len(outcome.submitted_at_kill) == 1, outcome.submitted_at_kill
    assert set(outcome.submitted_at_kill) <= set(outcome.sending_at_kill), outcome.sending_at_kill
    for row in outcome.submitted_at_kill:
        assert outcome.runs[row] == 1 and outcome.wall_outcomes[row] == ["ran"], row
    if max_late > down:  # back in time: the waiting ones run, late, once
        for row in outcome.sending_at_kill:
            assert outcome.runs[row] == 1 and outcome.wall_outcomes[row] == ["ran"], row


async def test_serve_killed_right_after_a_hand_over_reached_the_server_runs_it_once(
    tmp_path: Path,
) -> None:
    # the same promise in the other process layout: `python -m bot serve`, the tasks posted to
    # its API by a script with a token; SIGKILL right after a hand-over's submit ran
    trial = KillTrial(kill_at=None, down=0.3, max_late=60.0, layout="serve")
    outcome = await run_kill_trial(tmp_path, trial)
    check_kill(outcome)
    assert len(outcome.submitted_at_kill) == 1, outcome.submitted_at_kill
    for row in outcome.sending_at_kill:
        assert outcome.runs[row] == 1 and outcome.wall_outcomes[row] == ["ran"], row


@settings(max_examples=2, deadline=None, suppress_health_check=list(HealthCheck))
@given(kill_at=st.floats(0.5, 8.0), down=st.floats(0.0, 4.0), max_late=st.sampled_from([3.0, 60.0]))
async def test_a_bot_killed_at_any_moment_loses_nothing_and_runs_nothing_twice(
    tmp_path_factory: pytest.TempPathFactory, kill_at: float, down: float, max_late: float
) -> None:
    # max_late 3 s (under the 5 s grace): rows the bot was down for too long are missed,
    # which must be recorded and alerted; 60 s: they run late, once
    trial = KillTrial(kill_at=kill_at, down=down, max_late=max_late)
    check_kill(await run_kill_trial(tmp_path_factory.mktemp("kill"), trial))


def check_cut(outcome: CutOutcome) -> None:
    assert outcome.cuts > 10, outcome.cuts  # the connection really was cut, again and again
    assert outcome.unknown == [], {t: outcome.replies[t] for t in outcome.unknown}
    assert sorted(outcome.acknowledged) == sorted(outcome.runs), outcome.replies
    assert outcome.lost == [], f"never ran: {outcome.lost} (rows: {outcome.notes})"
    assert outcome.twice == [], f"ran twice: {outcome.twice}"
    assert outcome.unasked == []


@pytest.mark.parametrize("seed", [1, 2])
async def test_rcon_cut_at_random_runs_every_task_and_row_once(tmp_path: Path, seed: int) -> None:
    check_cut(await run_cut_trial(tmp_path, CutTrial(seed=seed)))
