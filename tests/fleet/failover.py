"""One failover trial on a running fleet (tests.fleet.processes): rows due at spread times on
every server, the holder of a server killed at a chosen moment among them, and what followed:
each row's runs (counted in the server's log), how late each was handed over (the
schedule_runs rows) and how long until the survivors held every server the dead one held.

A fleet serves many trials: a trial starts the bots it lacks (the one the last trial killed)
and names its rows apart, so the hypothesis test (tests/fleet/test_failover_hypothesis.py) and
bench/chaos.py --fault failover reuse one PostgreSQL, one set of mcsim servers and the living
bots."""

from __future__ import annotations

import asyncio
import itertools
import math
import signal
import time
from dataclasses import dataclass, field

from tests.fleet.processes import Bot, Fleet

__all__ = ["FailoverOutcome", "FailoverTrial", "run_failover_trial"]

TICK = 1.0  # the fleet's look at the leases (bot.background.fleet.TICK)
_trials = itertools.count()


@dataclass(frozen=True)
class FailoverTrial:
    kill_at: float  # seconds after the first row was made
    rows: int = 6  # alternating over the servers
    first_due: int = 1  # the first row is due this many seconds after it is made ("in Ns")
    step: int = 1  # seconds between the rows' due times
    bots: int = 2  # living bot processes at the kill
    signal: signal.Signals = signal.SIGKILL
    server: str = "a"  # the holder of this server is killed


@dataclass
class FailoverOutcome:
    runs: dict[str, int]  # marker -> its runs in the server's log
    lateness: dict[str, float] = field(default_factory=dict)  # marker -> due to handed over, s
    outcomes: dict[str, str] = field(default_factory=dict)  # marker -> its run's outcome
    takeover: float = 0.0  # kill -> every server the dead one held held by another, s
    killed_after: float = 0.0  # the kill, seconds after the first row was made
    victim_servers: tuple[str, ...] = ()
    after_kill: list[str] = field(default_factory=list)  # the dead one's rows due after the kill

    @property
    def lost(self) -> list[str]:
        return sorted(m for m, n in self.runs.items() if n == 0)

    @property
    def twice(self) -> list[str]:
        return sorted(m for m, n in self.runs.items() if n > 1)


def living(group: Fleet) -> list[Bot]:
    return [b for b in group.bots if b.process.alive]


async def _all_held(group: Fleet, limit: float) -> dict[str, int]:
    """Every server held by a living bot, each bot at most its share (a bot started again
    has taken its own, so no lease moves during the trial): server -> the holder's pid."""
    seen: dict[str, int] = {}

    def held() -> bool:
        pids = [b.pid for b in living(group)]
        holders = group.holders()  # one read: the leases move between two
        seen.clear()
        seen.update({s: holders.get(f"server:{s}", 0) for s in group.servers})
        share = math.ceil(len(group.servers) / max(len(pids), 1))
        counts = [list(seen.values()).count(pid) for pid in pids]
        return all(pid in pids for pid in seen.values()) and max(counts, default=0) <= share

    await group.wait_for(held, limit, "every server held by a living bot, by shares")
    return dict(seen)


def _runs_table(group: Fleet, markers: list[str]) -> dict[str, tuple[float | None, str]]:
    names = ",".join(f"'{m}'" for m in markers)
    out = group.pg.psql(
        "SELECT s.task_id, coalesce(r.lateness::text, ''), r.outcome FROM schedule_runs r "
        f"JOIN schedules s ON s.id = r.schedule_id WHERE s.task_id IN ({names})",
        database=group.url.rsplit("/", 1)[1],
    ).stdout
    found: dict[str, tuple[float | None, str]] = {}
    for line in out.splitlines():
        task, late, outcome = line.split("|")
        found[task] = (float(late) if late else None, outcome)
    return found


async def run_failover_trial(
    group: Fleet,
    trial: FailoverTrial,
    *,
    settle: float = 1.0,
    settle_record: float = 10.0,
    limit: float = 40.0,
) -> FailoverOutcome:
    """Run `trial` on `group`; the bots it kills stay dead until the next trial starts them
    (one is started again as soon as the takeover is seen, so the next trial waits less)."""
    while len(living(group)) < trial.bots:
        await group.start_bot()
    holders = await _all_held(group, 3 * group.ttl)
    victim = group.bot_of(holders[trial.server])
    servers = tuple(s for s in group.servers if holders[s] == victim.pid)
    survivor = next(b for b in living(group) if b is not victim)
    n = next(_trials)
    names = list(group.servers)
    markers: dict[str, str] = {}  # marker -> server
    due: dict[str, float] = {}  # marker -> monotonic, about (the API counts from its receipt)
    began = time.monotonic()
    for i in range(trial.rows):
        server = names[i % len(names)]
        marker = f"fo{n}x{i}"
        delay = trial.first_due + i * trial.step
        due[marker] = time.monotonic() + delay
        await group.schedule(survivor, server, marker, f"in {delay}s")
        markers[marker] = server
    await asyncio.sleep(max(0.0, trial.kill_at - (time.monotonic() - began)))
    killed_at = time.monotonic()
    await group.kill(victim, trial.signal)

    def taken() -> bool:
        return all(group.holder_of(s) not in (None, victim.pid) for s in servers)

    await group.wait_for(taken, group.ttl + 4 * TICK, "takeover")
    outcome = FailoverOutcome({}, takeover=time.monotonic() - killed_at)
    outcome.killed_after = killed_at - began
    outcome.victim_servers = servers
    outcome.after_kill = [m for m, s in markers.items() if s in servers and due[m] > killed_at]
    restart = asyncio.create_task(group.start_bot())
    try:
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            if all(group.runs_of(s, m) >= 1 for m, s in markers.items()):
                break
            await asyncio.sleep(0.2)
        await asyncio.sleep(settle)  # a second copy would have come by now
    finally:
        await restart
    outcome.runs = {m: group.runs_of(s, m) for m, s in markers.items()}
    # a run the dead one handed over but had not recorded is recorded by its new holder
    # (its recovery): give it `settle_record` seconds before reading what stays
    table = await asyncio.to_thread(_runs_table, group, list(markers))
    deadline = time.monotonic() + settle_record
    while any(w == "sending" for _, w in table.values()) and time.monotonic() < deadline:
        await asyncio.sleep(0.5)
        table = await asyncio.to_thread(_runs_table, group, list(markers))
    for marker, (late, what) in table.items():
        outcome.outcomes[marker] = what
        if late is not None:
            outcome.lateness[marker] = late
    return outcome
