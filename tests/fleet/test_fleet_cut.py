"""Real bot processes (`python -m bot serve`) cut from their PostgreSQL: a holder alone (its
own login role refused and its sessions ended with pg_terminate_backend), and every process at
once (the database stopped as a crash stops it). A process cut runs nothing once its lease is
gone: it stops the work on its own clock, sends its servers nothing (its RCON sockets' byte
counts, read with ss), every row runs once or is recorded missed under DOOM_MAX_LATE, no process
exits, and a process that may reach the database again takes its share again."""

from __future__ import annotations

import asyncio
import itertools
import re
import subprocess
import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from bot.background.crash_guard import COMPARE_WAIT
from tests.fleet.processes import Bot, Fleet, fleet

pytestmark = pytest.mark.slow
TTL = 6.0  # a fence 3 s after the last renewal: room for a loaded CI machine's stalls
MAX_LATE = 6.0  # DOOM_MAX_LATE while the database is stopped: a one-shot later than this is missed
TICK = 1.0  # the fleet's look at the leases (bot.background.fleet.TICK)
SETTLE = 2.0  # seconds after which a second copy of a run would have come
FENCED = "its lease cannot be renewed and ends soon"  # bot.background.fleet, its log line


def sent_by(pid: int, ports: Iterable[int]) -> dict[int, int]:
    """Bytes process `pid` has sent on each of its TCP connections to these ports (by local
    port), from the kernel's counters (ss): what it said to the servers, whoever logs it."""
    wanted = {f"127.0.0.1:{port}" for port in ports}
    out = subprocess.run(
        ["ss", "-tinpH", "state", "established"],
        capture_output=True,
        text=True,
        timeout=10,
        check=True,
    ).stdout
    sent: dict[int, int] = {}
    lines = out.splitlines()
    for head, info in itertools.pairwise(lines):
        fields = head.split()
        if len(fields) < 4 or f"pid={pid}," not in head or fields[3] not in wanted:
            continue
        count = re.search(r"bytes_sent:(\d+)", info)
        sent[int(fields[2].rsplit(":", 1)[1])] = int(count[1]) if count else 0
    return sent


@dataclass
class RunRecord:
    task_id: str
    due: float
    handed_over: float | None
    lateness: float | None
    outcome: str


def runs(group: Fleet) -> dict[str, list[RunRecord]]:
    """Every run the database recorded, by task id (as an operator reads it with psql)."""
    out = group.pg.psql(
        "SELECT s.task_id, r.due, coalesce(r.handed_over, -1), coalesce(r.lateness, -1),"
        " r.outcome FROM schedule_runs r JOIN schedules s ON s.id = r.schedule_id ORDER BY r.id",
        database=group.database,
    ).stdout
    found: dict[str, list[RunRecord]] = {}
    for line in out.splitlines():
        task_id, due, handed, late, outcome = line.split("|")
        record = RunRecord(
            task_id,
            float(due),
            None if float(handed) < 0 else float(handed),
            None if float(late) < 0 else float(late),
            outcome,
        )
        found.setdefault(task_id, []).append(record)
    return found


def due_of(group: Fleet, task_id: str) -> float:
    out = group.pg.psql(
        f"SELECT at FROM schedules WHERE task_id = '{task_id}'", database=group.database
    ).stdout
    return float(out.strip())


def lease_row(group: Fleet, server: str) -> tuple[str, float, float]:
    """The lease row of `server` as it stands, expired or not: holder, expires, acquired."""
    out = group.pg.psql(
        f"SELECT holder, expires, acquired FROM leases WHERE name = 'server:{server}'",
        database=group.database,
    ).stdout.strip()
    holder, expires, acquired = out.split("|")
    return holder, float(expires), float(acquired)


def logged_at(bot: Bot, text: str) -> list[float]:
    """When (epoch seconds) the bot logged lines holding `text` (bot.__main__'s format)."""
    times = []
    for line in bot.process.err.splitlines():
        if text in line:
            stamp = datetime.strptime(line[:23], "%Y-%m-%d %H:%M:%S,%f")
            times.append(stamp.timestamp())
    return times


STAMP = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} \S+ (\w+) (\S+): ", re.M)
# the event stream (bot/events, not what these tests are about) logs a traceback each time its
# source, which keeps its place in the database, fails while the database is away; said in
# the report, not failed here
EXCUSED = ("bot.events.", "/bot/events/")


def records(bot: Bot) -> list[tuple[str, str]]:
    """The bot's log records (logger, whole text with any traceback), in order."""
    err = bot.process.err
    starts = list(STAMP.finditer(err))
    return [
        (m[2], err[m.start() : starts[i + 1].start() if i + 1 < len(starts) else len(err)])
        for i, m in enumerate(starts)
    ]


def crashed(bot: Bot, excused: set[str] | None = None) -> str:
    """What says the process ended, or met a fault it did not expect (a traceback in its
    log: the database away is said in words); "" when nothing. The event stream's own
    tracebacks go to `excused` (their first line)."""
    assert bot.process.proc is not None
    if bot.process.proc.returncode is not None:
        return f"exited {bot.process.proc.returncode}:\n{bot.process.err[-3000:]}"
    found = []
    for logger, text in records(bot):
        if not any(sign in text for sign in ("Traceback", "was never retrieved")):
            continue
        if logger.startswith(EXCUSED[0]) or (logger == "asyncio" and EXCUSED[1] in text):
            if excused is not None:
                excused.add(text.splitlines()[0].split(" ", 3)[-1])
            continue
        found.append(text[:3000])
    return "\n".join(found)


async def wait_until(moment: float) -> None:
    await asyncio.sleep(max(0.0, moment - time.time()))


async def recorded_runs(group: Fleet) -> dict[str, list[RunRecord]]:
    """The runs once none is left `sending`: a holder that has just taken a server records a
    run's outcome after its crash guard has compared the log (up to COMPARE_WAIT), which on a
    loaded machine comes after the game ran it; a run still `sending` after that is reported."""
    began = time.monotonic()
    while True:
        found = runs(group)
        sending = any(r.outcome == "sending" for records in found.values() for r in records)
        if not sending or time.monotonic() - began > COMPARE_WAIT + 5:
            return found
        await asyncio.sleep(0.2)


async def ran_once(group: Fleet, markers: list[tuple[str, str]], limit: float) -> None:
    began = time.monotonic()
    while not all(group.runs_of(server, m) >= 1 for server, m in markers):
        assert time.monotonic() - began < limit, {m: group.runs_of(s, m) for s, m in markers}
        await asyncio.sleep(0.2)


async def test_a_holder_cut_from_the_database_runs_nothing_after_its_lease(
    tmp_path: Path, postgres: Any
) -> None:
    """One holder's role may no longer log in and its sessions (the pool's, the listener's)
    are ended: the other takes its server within the TTL; the cut one stops on its own clock
    before its lease ends and sends its servers nothing after; every row runs once, those due
    after the cut by the new holder's tenure; let in again, it takes its share again."""
    async with fleet(tmp_path, postgres, ttl=TTL) as group:
        roles = [group.add_role(f"bot{i}") for i in range(2)]
        first = await group.start_bot(roles[0])
        await group.wait_for(lambda: group.holder_of("b") == first.pid, 15, "the first holds")
        second = await group.start_bot(roles[1])
        await group.wait_for(
            lambda: {group.holder_of("a"), group.holder_of("b")} == {first.pid, second.pid},
            3 * TTL,
            "one server each",
        )
        cut = group.bot_of(group.holder_of("a") or 0)
        other = first if cut is second else second
        ports = [mc.port for mc in group.servers.values()]
        # rows of the cut one's server, made through the other: one due before the cut, the
        # rest between the cut and its lease's end, around that end and well after it; two of
        # the other's server beside them
        t0 = time.time()
        cut_in = 3.5  # the API takes whole seconds
        on_a = {"cutpre": 2, "cut1": 4, "cut2": 5, "cut3": 6, "cut4": 8, "cut5": 10}
        on_b = {"keep1": 5, "keep2": 8}
        for server, rows in (("a", on_a), ("b", on_b)):
            for task_id, offset in rows.items():
                await group.schedule(other, server, task_id, f"in {offset}s")
        due = {task_id: due_of(group, task_id) for task_id in [*on_a, *on_b]}
        await wait_until(t0 + cut_in)
        assert cut.user is not None
        cut_at = time.time()
        group.pg.psql(f"ALTER ROLE {cut.user} NOLOGIN")
        ended = group.pg.psql(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
            f" WHERE usename = '{cut.user}'"
        ).stdout.strip()
        assert int(ended) >= 2  # the pool's connection(s) and the listener's
        await asyncio.sleep(0.3)  # a commit under way when the signal came has ended
        left = group.pg.psql(
            f"SELECT count(*) FROM pg_stat_activity WHERE usename = '{cut.user}'"
        ).stdout.strip()
        assert left == "0"
        holder, expires, _ = lease_row(group, "a")
        assert int(holder.split(":")[1]) == cut.pid and expires > cut_at
        # what the cut one has said to the servers when its lease ends: nothing more after
        await wait_until(expires)
        silent_from = sent_by(cut.pid, ports)
        # the other takes the server once the lease has expired, by the next look
        await group.wait_for(lambda: group.holder_of("a") == other.pid, 3 * TICK, "takeover")
        takeover = time.time()
        assert takeover - cut_at <= TTL + 2 * TICK, takeover - cut_at
        _, _, acquired = lease_row(group, "a")
        assert acquired >= expires
        # the cut one stopped acting on its own clock before its lease ended
        fenced = logged_at(cut, f"stopping server:a: {FENCED}")
        assert len(fenced) == 1 and fenced[0] < expires, (fenced, expires, cut.process.err)
        # every row runs once
        markers = [("a", m) for m in on_a] + [("b", m) for m in on_b]
        await ran_once(group, markers, 30)
        await asyncio.sleep(SETTLE)
        assert {m: group.runs_of(s, m) for s, m in markers} == {m: 1 for _, m in markers}
        # ... and the cut one sent its servers nothing since its lease ended
        assert sent_by(cut.pid, ports) == silent_from
        recorded = await recorded_runs(group)
        outcomes = {m: [r.outcome for r in recorded[m]] for _, m in markers}
        assert outcomes == {m: ["ran"] for _, m in markers}, other.process.err[-6000:]
        for task_id in on_a:
            record = recorded[task_id][0]
            assert record.handed_over is not None
            if due[task_id] > cut_at:  # the new holder's, under the lease it took
                assert record.handed_over >= acquired, (task_id, record, acquired)
        assert crashed(cut) == "" and crashed(other) == ""
        print(
            f"\ntakeover seen {takeover - cut_at:.2f} s after the cut, lease ended"
            f" {expires - cut_at:.2f} s after the cut, taken"
            f" {acquired - expires:.2f} s after its end; the cut one stopped"
            f" {expires - fenced[0]:.2f} s before its end; lateness "
            + ", ".join(f"{m} {recorded[m][0].lateness:.2f}" for _, m in markers)
        )
        # let in again: it joins, takes its share, and what is made then runs once
        group.pg.psql(f"ALTER ROLE {cut.user} LOGIN")
        rejoined = await group.wait_for(
            lambda: {group.holder_of("a"), group.holder_of("b")} == {cut.pid, other.pid},
            3 * TTL,
            "its share again",
        )
        after = [("a", "back1"), ("b", "back2")]
        for (server, task_id), via in zip(after, (cut, other), strict=True):
            await group.schedule(via, server, task_id, "in 2s")
        await ran_once(group, after, 20)
        await asyncio.sleep(SETTLE)
        everything = markers + after
        assert {m: group.runs_of(s, m) for s, m in everything} == {m: 1 for _, m in everything}
        excused: set[str] = set()
        assert crashed(cut, excused) == "" and crashed(other, excused) == ""
        print(f"event stream tracebacks (bot/events): {sorted(excused)}")
        print(f"rejoined: its share again {rejoined:.2f} s after its role could log in again")


async def test_a_stopped_database_stops_every_holder_until_it_returns(
    tmp_path: Path, postgres: Any
) -> None:
    """PostgreSQL stopped as a crash stops it, for longer than the TTL, while rows come due:
    every holder stops on its own clock before its lease can end and sends its servers nothing
    until the database is back; no process exits; then the rows due meanwhile run once, late
    within DOOM_MAX_LATE, or are recorded missed when later than that (a one-shot's policy,
    `missed: once`); the rows due before and after run once on time."""
    async with fleet(tmp_path, postgres, ttl=TTL) as group:
        group.extra_env["DOOM_MAX_LATE"] = format(MAX_LATE, "g")
        first = await group.start_bot()
        await group.wait_for(lambda: group.holder_of("b") == first.pid, 15, "the first holds")
        second = await group.start_bot()
        await group.wait_for(
            lambda: {group.holder_of("a"), group.holder_of("b")} == {first.pid, second.pid},
            3 * TTL,
            "one server each",
        )
        bots = [first, second]
        ports = [mc.port for mc in group.servers.values()]
        t0 = time.time()
        stop_in, outage = 3.5, 10.0
        # seconds from t0: before the stop; early in the outage (later than MAX_LATE by the
        # time the database is back: missed); late in it, after every lease ended (within
        # MAX_LATE when it is back: run late); after it
        rows = {
            ("a", "pre_a"): 2,
            ("b", "pre_b"): 2,
            ("a", "early_a"): 4,
            ("b", "early_b"): 6,
            ("a", "late_a"): 12,
            ("b", "late_b"): 13,
            ("a", "after_a"): 17,
            ("b", "after_b"): 17,
        }
        missed = {"early_a", "early_b"}
        for (server, task_id), offset in rows.items():
            await group.schedule(first, server, task_id, f"in {offset}s")
        due = {task_id: due_of(group, task_id) for _, task_id in rows}
        await wait_until(t0 + stop_in)
        stopped_at = time.time()
        group.pg.stop(immediate=True)
        try:
            # a renewal committed before the stop ends TTL later at the latest
            await wait_until(stopped_at + TTL)
            silent_from = {bot.pid: sent_by(bot.pid, ports) for bot in bots}
            await wait_until(stopped_at + outage)
            during = [t for _, t in rows if stopped_at < due[t] < time.time()]
            assert {t: group.runs_of(s, t) for s, t in rows if t in during} == {
                t: 0 for t in during
            }
            assert {bot.pid: sent_by(bot.pid, ports) for bot in bots} == silent_from
            assert [crashed(bot) for bot in bots] == ["", ""]
        finally:
            group.pg.start()
        back_at = time.time()
        for bot in bots:  # each stopped its server's work before its lease could end
            fenced = logged_at(bot, FENCED)
            assert fenced and stopped_at < min(fenced) < stopped_at + TTL, (fenced, stopped_at)
        retaken = await group.wait_for(
            lambda: group.holder_of("a") is not None and group.holder_of("b") is not None,
            TTL + 3 * TICK,
            "held again",
        )
        ran = [(s, t) for s, t in rows if t not in missed]
        await ran_once(group, ran, 30)
        await asyncio.sleep(SETTLE)
        assert {t: group.runs_of(s, t) for s, t in rows} == {
            t: 0 if t in missed else 1 for _, t in rows
        }
        recorded = await recorded_runs(group)
        assert {t: [r.outcome for r in recorded[t]] for _, t in rows} == {
            t: ["missed" if t in missed else "ran"] for _, t in rows
        }
        for task_id in during:
            record = recorded[task_id][0]
            if task_id not in missed:  # handed over once the database was back, in time
                assert record.handed_over is not None and record.handed_over >= back_at
                assert record.lateness is not None and record.lateness <= MAX_LATE
        states = group.pg.psql(
            "SELECT task_id, state FROM schedules ORDER BY task_id", database=group.database
        ).stdout.split()
        assert states == sorted(f"{t}|{'missed' if t in missed else 'done'}" for _, t in rows)
        excused: set[str] = set()
        assert [crashed(bot, excused) for bot in bots] == ["", ""]
        print(f"\nevent stream tracebacks (bot/events): {sorted(excused)}")
        print(
            f"\ndatabase away {back_at - stopped_at:.2f} s; servers held again"
            f" {retaken:.2f} s after it was back; fenced "
            + ", ".join(f"{min(logged_at(b, FENCED)) - stopped_at:.2f} s" for b in bots)
            + " after the stop; lateness "
            + ", ".join(
                f"{t} {recorded[t][0].lateness:.2f}"
                if recorded[t][0].lateness is not None
                else f"{t} missed ({back_at - due[t]:.1f} s late when it was back)"
                for _, t in rows
            )
        )
