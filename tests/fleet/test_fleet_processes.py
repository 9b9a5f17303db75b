"""Two and three real bot processes (`python -m bot serve`) on one PostgreSQL with two mcsim
servers: the servers are shared out, a row made through one process's API runs once, a dead
holder's servers are taken over within the TTL and their runs handed over once, SIGTERM hands
them over at once, and a process frozen past its lease runs nothing once it wakes."""

from __future__ import annotations

import asyncio
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from tests.fleet.processes import fleet

pytestmark = pytest.mark.slow
TTL = 4.0
TICK = 1.0  # the fleet's look at the leases (bot.background.fleet.TICK)


async def _all_ran_once(group: Any, markers: list[tuple[str, str]], limit: float) -> None:
    began = time.monotonic()
    while not all(group.runs_of(server, m) >= 1 for server, m in markers):
        assert time.monotonic() - began < limit, {
            m: group.runs_of(server, m) for server, m in markers
        }
        await asyncio.sleep(0.2)
    await asyncio.sleep(2.0)  # a second copy would have come by now
    runs = {m: group.runs_of(server, m) for server, m in markers}
    assert runs == {m: 1 for _, m in markers}, runs


async def test_two_processes_share_the_servers_and_run_each_row_once(
    tmp_path: Path, postgres: Any
) -> None:
    async with fleet(tmp_path, postgres, ttl=TTL) as group:
        first = await group.start_bot()
        await group.wait_for(lambda: len(group.holders()) >= 3, 15, "the first takes both")
        assert group.holder_of("a") == group.holder_of("b") == first.pid
        second = await group.start_bot()
        # the second takes its share: one server each
        await group.wait_for(
            lambda: {group.holder_of("a"), group.holder_of("b")} == {first.pid, second.pid},
            3 * TTL,
            "one server each",
        )
        # each process says who does which server's work: /api/servers, /metrics
        # (each as of its last look at the leases, a second ago at most)
        expected = {"a": group.holder_of("a"), "b": group.holder_of("b")}
        for bot in (first, second):
            said: dict[str, int | None] = {}
            for _ in range(30):
                listed = await group.get_json(bot, "/api/servers")
                said = {
                    s["name"]: int(s["lease_holder"].split(":")[1]) if s["lease_holder"] else None
                    for s in listed["servers"]
                }
                if said == expected:
                    break
                await asyncio.sleep(0.2)
            assert said == expected
            metrics = await group.get_text(bot, "/metrics")
            mine = "a" if group.holder_of("a") == bot.pid else "b"
            assert f'doom_lease_held{{lease="server:{mine}"}} 1.0' in metrics
            assert "doom_fleet_processes 2.0" in metrics
        # rows made through either process's API, for both servers, run once each
        markers = []
        for i, (bot, server) in enumerate(
            [(first, "a"), (first, "b"), (second, "a"), (second, "b")]
        ):
            await group.schedule(bot, server, f"fleet{i}", "in 4s")
            markers.append((server, f"fleet{i}"))
        await _all_ran_once(group, markers, 30)


async def test_a_killed_holders_servers_are_taken_within_the_ttl_and_run_once(
    tmp_path: Path, postgres: Any
) -> None:
    async with fleet(tmp_path, postgres, ttl=TTL) as group:
        bots = [await group.start_bot() for _ in range(3)]
        await group.wait_for(
            lambda: group.holder_of("a") is not None and group.holder_of("b") is not None,
            3 * TTL,
            "both held",
        )
        victim = group.bot_of(group.holder_of("a") or 0)
        others = [b for b in bots if b is not victim]
        markers = []
        for i in range(6):  # due before, around and after the kill
            server = "ab"[i % 2]
            await group.schedule(others[0], server, f"kill{i}", f"in {3 + i}s")
            markers.append((server, f"kill{i}"))
        await asyncio.sleep(4.0)
        killed_at = time.monotonic()
        await group.kill(victim, signal.SIGKILL)
        took = await group.wait_for(
            lambda: group.holder_of("a") not in (None, victim.pid), TTL + 3 * TICK, "takeover"
        )
        assert time.monotonic() - killed_at <= TTL + 2 * TICK, took
        await _all_ran_once(group, markers, 40)


async def test_sigterm_hands_the_servers_over_within_two_seconds(
    tmp_path: Path, postgres: Any
) -> None:
    async with fleet(tmp_path, postgres, ttl=10.0) as group:
        first = await group.start_bot()
        second = await group.start_bot()
        await group.wait_for(
            lambda: {group.holder_of("a"), group.holder_of("b")} == {first.pid, second.pid},
            40,
            "one server each",
        )
        leaving = group.bot_of(group.holder_of("a") or 0)
        staying = first if leaving is second else second
        await group.schedule(staying, "a", "handed", "in 6s")
        began = time.monotonic()
        await group.kill(leaving, signal.SIGTERM)
        await group.wait_for(lambda: group.holder_of("a") == staying.pid, 5, "hand-over")
        assert time.monotonic() - began <= 2.0  # the exit itself, then the take (a notice)
        await _all_ran_once(group, [("a", "handed")], 30)


async def test_a_process_frozen_past_its_lease_runs_nothing_when_it_wakes(
    tmp_path: Path, postgres: Any
) -> None:
    """SIGSTOP the holder (a pause longer than its lease, as a stalled VM): another takes the
    server; the frozen one, woken, finds its lease gone at its first look and its hand-overs
    fenced: every run still happens once."""
    async with fleet(tmp_path, postgres, servers=1, ttl=TTL) as group:
        first = await group.start_bot()
        await group.wait_for(lambda: group.holder_of("a") == first.pid, 15, "first holds")
        second = await group.start_bot()
        markers = [("a", f"frozen{i}") for i in range(4)]
        for i, (_, marker) in enumerate(markers):
            await group.schedule(second, "a", marker, f"in {4 + 2 * i}s")
        await asyncio.sleep(2.5)
        await group.kill(first, signal.SIGSTOP)
        await group.wait_for(lambda: group.holder_of("a") == second.pid, TTL + 3, "takeover")
        await asyncio.sleep(3.0)  # runs come due while the first is frozen
        await group.kill(first, signal.SIGCONT)
        await _all_ran_once(group, markers, 40)
        assert group.holder_of("a") == second.pid
