"""SIGKILL of a server's holder at a point hypothesis chooses among rows due on two servers:
every row runs exactly once (counted in the server's own log) and the survivors hold the dead
process's servers within the lease TTL and two looks. One PostgreSQL, two mcsim servers and the
living bot processes serve every example; each example starts again the bot the last one
killed."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fleet.failover import TICK, FailoverTrial, run_failover_trial
from tests.fleet.processes import Fleet, fleet

pytestmark = pytest.mark.slow
TTL = 3.0  # the least DOOM_LEASE_TTL allows: the takeover is what each example waits for


@pytest.fixture
async def group(tmp_path: Path, postgres: Any) -> AsyncIterator[Fleet]:
    async with fleet(tmp_path, postgres, ttl=TTL) as running:
        await running.start_bot()
        yield running


@settings(max_examples=4, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(
    kill_at=st.floats(0.3, 5.0),
    server=st.sampled_from(["a", "b"]),
    bots=st.sampled_from([2, 3]),
)
async def test_a_holder_killed_at_any_point_loses_no_run_and_runs_none_twice(
    group: Fleet, kill_at: float, server: str, bots: int
) -> None:
    # six rows due 1-6 s after they are made, alternating servers: some before the kill, some
    # while the dead holder's lease runs out, some after the takeover
    trial = FailoverTrial(kill_at=kill_at, server=server, bots=bots)
    outcome = await run_failover_trial(group, trial)
    assert outcome.lost == [], (outcome, trial)
    assert outcome.twice == [], (outcome, trial)
    assert outcome.takeover <= TTL + 2 * TICK, (outcome, trial)
