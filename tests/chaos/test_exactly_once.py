"""Exactly once across server crashes, with faults injected: mcsim as its own process, SIGKILL
around saves (save-all and the 6000-tick autosave), due ticks, restarts and wall-clock
hand-overs; every run counted in the server's own logs. Each acknowledged task runs once (0 lost,
0 twice) and each rollback the bot repairs is alerted once, listing what it did."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.chaos.rig import Outcome, Rig, Trial, count_runs, run_trial, seed_world

pytestmark = pytest.mark.slow  # each kills and restarts a server and its bot, 4-20 s


def check(outcome: Outcome) -> None:
    assert outcome.lost == [], f"never ran: {outcome.lost} (wall-clock runs: {outcome.notes})"
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
    # wall-clock rows, due 2-3.9 s after they are made (the kill is about 1 s after), hand over
    # around the restart and take the restored pack's serials
    trial = Trial(
        save="none", due_from=180, kill_at=100, down=0.3, wall=20, wall_from=2.0, wall_step=0.1
    )
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
    tmp_path_factory: pytest.TempPathFactory,
    save: str,
    save_at: int,
    kill_at: int,
    down: float,
    wall: int,
) -> None:
    trial = Trial(
        game=12,
        save=save,
        save_at=save_at,
        kill_at=kill_at,
        down=down,  # type: ignore[arg-type]
        wall=wall,
        wall_from=0.5,
        wall_step=0.3,
    )
    check(await run_trial(tmp_path_factory.mktemp("trial"), trial))


async def test_a_reload_holds_only_until_the_bot_has_looked(tmp_path: Path) -> None:
    # #load runs on /reload too and cannot tell it from a start: it holds, says so, and the
    # bot's guard looks (nothing rolled back), releases at once and posts nothing
    world = tmp_path / "world"
    seed_world(world)
    rig = Rig(world, tmp_path)
    async with rig.running() as services:
        await rig.guard_idle(0)
        guard = services.servers["main"].guard
        assert guard is not None and rig.admin is not None
        pack = services.servers["main"].pack
        await rig.admin.command("tick rate 200")
        now = await rig.game_time()
        await pack.schedule("say run-r0", 0, "t", "r0", at_tick=now + 100)
        checks = guard.checks
        await rig.admin.command("reload")
        await rig.guard_idle(checks)
        await rig.until_time(now + 140)
        log = (world / "logs" / "latest.log").read_text()
        assert "holding due tasks for up to 600 ticks" in log
        assert "hold ended" not in log  # released by the bot, not by the bound
        assert count_runs(world, ["r0"]) == {"r0": 1}
        assert rig.alerts == []
