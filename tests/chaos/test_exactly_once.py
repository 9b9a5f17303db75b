"""Exactly once across server crashes, with faults injected: mcsim as its own process, SIGKILL
around saves (save-all and the 6000-tick autosave), due ticks, restarts and wall-clock
hand-overs; every run counted in the server's own logs. Each acknowledged task runs once (0 lost,
0 twice) and each rollback the bot repairs is alerted once, listing what it did."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.chaos.rig import Outcome, Trial, run_trial


def check(outcome: Outcome) -> None:
    assert outcome.lost == [], f"never ran: {outcome.lost}"
    assert outcome.twice == [], f"ran twice: {outcome.twice}"
    repair = outcome.needs_repair()
    if repair:
        assert len(outcome.alerts) == 1, outcome.alerts
        listed = " ".join(str(v) for v in outcome.alerts[0].details.values())
        assert all(t in listed for t in repair), (repair, listed)
    else:
        assert len(outcome.alerts) <= 1


async def test_tasks_run_after_a_save_all_do_not_run_again_after_sigkill(tmp_path: Path) -> None:
    # every task still queued in the save; all 20 run; SIGKILL well after
    outcome = await run_trial(tmp_path, Trial(save="save-all", save_at=190, kill_at=500))
    assert outcome.saved == set(outcome.runs)
    assert all(n == 1 for n in outcome.ran_before_kill.values()), outcome.ran_before_kill
    check(outcome)
    assert len(outcome.needs_repair()) == 20


async def test_tasks_run_after_the_autosave_do_not_run_again_after_sigkill(tmp_path: Path) -> None:
    outcome = await run_trial(tmp_path, Trial(save="autosave", save_at=190, kill_at=500))
    assert all(n == 1 for n in outcome.ran_before_kill.values()), outcome.ran_before_kill
    check(outcome)
    assert len(outcome.needs_repair()) == 20


async def test_never_saved_tasks_are_all_put_back_while_wall_clock_rows_hand_over(
    tmp_path: Path,
) -> None:
    # due 9-18.5 s (game time, sped up) after they were made, SIGKILL at 5 s, back 0.3 s later;
    # wall-clock rows hand over around the restart and take the restored pack's serials
    trial = Trial(save="none", due_from=180, kill_at=100, down=0.3, wall=20, wall_from=1.0,
                  wall_step=0.1)  # fmt: skip
    outcome = await run_trial(tmp_path, trial)
    assert sum(outcome.ran_before_kill.values()) == 0
    check(outcome)
    assert len(outcome.needs_repair()) == 20


@settings(max_examples=2, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    save=st.sampled_from(["save-all", "none"]),
    save_at=st.integers(120, 400),
    kill_at=st.integers(150, 520),
    down=st.floats(0.0, 0.5),
    wall=st.sampled_from([0, 6]),
)
async def test_any_kill_point_loses_nothing_and_runs_nothing_twice(
    tmp_path_factory: pytest.TempPathFactory, save: str, save_at: int, kill_at: int,
    down: float, wall: int,
) -> None:  # fmt: skip
    trial = Trial(game=12, save=save, save_at=save_at, kill_at=kill_at, down=down,  # type: ignore[arg-type]
                  wall=wall, wall_from=0.5, wall_step=0.3)  # fmt: skip
    check(await run_trial(tmp_path_factory.mktemp("trial"), trial))
