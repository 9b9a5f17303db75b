"""The Discord gateway's lease (bot.background.fleet.GATEWAY, held by Fleet.want) on a real
PostgreSQL, with the fleets' clocks injected: one process holds it beside its share of the
servers, a drop hands it over at once and is not taken back, and a holder cut from the database
stops its work on its own clock, before the lease can expire, while another takes it only once
the database says it expired; /status names the process connected to Discord."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from bot.background.fleet import GATEWAY, Fleet
from bot.core import Core
from bot.operations.caller import Caller
from bot.operations.queue import ServerRef
from bot.operations.ranks import Rank
from bot.operations.status import status
from bot.services import build_services
from bot.store.db import Database, StoreUnavailable
from bot.store.leases import Lease, LeaseStore
from bot.testkit.harness import make_settings
from bot.testkit.servers import server_config, start_mcsim

TTL = 3.0  # the shortest DOOM_LEASE_TTL there is
PASSWORD = "gateway-status"
MARGIN = 1.0  # the holder stops this long before the lease could expire


@dataclass(eq=False)
class Work:
    """What a lease's work was told, in order: ("gain" | "lose", lease name, token)."""

    said: list[tuple[str, str, int]] = field(default_factory=list)

    async def gain(self, lease: Lease) -> None:
        self.said.append(("gain", lease.name, lease.token))

    async def lose(self, lease: Lease) -> None:
        self.said.append(("lose", lease.name, lease.token))


@dataclass
class Clock:
    now: float = 1000.0

    def __call__(self) -> float:
        return self.now


@dataclass(eq=False)
class Process:
    fleet: Fleet
    servers: Work
    gateway: Work
    clock: Clock


@pytest.fixture
async def db(postgres: Any) -> AsyncIterator[Database]:
    found = Database(postgres.new_database(template="doom_template"))
    try:
        yield found
    finally:
        await found.close()


def process(db: Database, holder: str) -> Process:
    servers, gateway, clock = Work(), Work(), Clock()
    fleet = Fleet(LeaseStore(db, holder, ttl=TTL), ["a", "b"], servers, margin=MARGIN, clock=clock)
    fleet.want(GATEWAY, gateway)
    return Process(fleet, servers, gateway, clock)


async def test_one_process_holds_the_gateway_and_a_drop_hands_it_over_at_once(
    db: Database,
) -> None:
    one, two = process(db, "one"), process(db, "two")
    await one.fleet.step()
    await two.fleet.step()
    assert one.gateway.said == [("gain", GATEWAY, 1)]
    assert two.gateway.said == []  # held by one: two waits
    assert one.fleet.lease_holder(GATEWAY) == "one" and two.fleet.lease_holder(GATEWAY) == "one"
    await one.fleet.step()
    await two.fleet.step()
    # the gateway is beside the share: each holds one server (two processes, two servers)
    assert [one.fleet.holds(s) for s in "ab"] != [two.fleet.holds(s) for s in "ab"]
    assert sum(one.fleet.holds(s) for s in "ab") == 1
    # a renewal keeps it: a third of the TTL later by the holder's clock
    one.clock.now += TTL / 3
    await one.fleet.step()
    assert GATEWAY in one.fleet.held and one.gateway.said == [("gain", GATEWAY, 1)]

    await one.fleet.drop(GATEWAY)  # SIGTERM
    assert one.gateway.said == [("gain", GATEWAY, 1), ("lose", GATEWAY, 1)]
    await two.fleet.step()  # its next look (at once when the release's notice wakes it)
    assert two.gateway.said == [("gain", GATEWAY, 2)]
    await one.fleet.step()
    assert GATEWAY not in one.fleet.held  # dropped: never taken back
    assert one.fleet.lease_holder(GATEWAY) == "two"
    await two.fleet.stop()
    await one.fleet.stop()
    assert two.gateway.said[-1] == ("lose", GATEWAY, 2)


@dataclass(eq=False)
class AwayWork(Work):
    """A server's work that cannot start: its database reads fail as when PostgreSQL is away."""

    async def gain(self, lease: Lease) -> None:
        await super().gain(lease)
        raise StoreUnavailable("The bot's database cannot be reached.")


async def test_work_that_cannot_start_for_the_database_is_given_back_in_words(
    db: Database, caplog: pytest.LogCaptureFixture
) -> None:
    """Taking a server whose work cannot start (the database away a moment) gives the lease
    back at once, said in a warning without a traceback; another process takes it."""
    one = process(db, "one")
    one.fleet.servers = ["a"]
    one.fleet.work = one.servers = AwayWork()
    with caplog.at_level(logging.WARNING, logger="bot.background.fleet"):
        await one.fleet.step()
    assert one.servers.said == [("gain", "server:a", 1), ("lose", "server:a", 1)]
    assert not one.fleet.holds("a")
    said = [r for r in caplog.records if "starting the work of server:a" in r.getMessage()]
    assert len(said) == 1 and said[0].exc_info is None
    assert "cannot be reached" in said[0].getMessage()
    two = process(db, "two")
    two.fleet.servers = ["a"]
    await two.fleet.step()
    assert two.fleet.holds("a") and two.servers.said == [("gain", "server:a", 2)]
    await two.fleet.stop()
    await one.fleet.stop()


@pytest.mark.slow  # waits out a real lease on the database's clock
async def test_a_holder_cut_from_the_database_stops_before_its_lease_can_expire(
    db: Database, postgres: Any
) -> None:
    one, two = process(db, "one"), process(db, "two")
    await one.fleet.step()
    await two.fleet.step()
    assert one.gateway.said == [("gain", GATEWAY, 1)]
    renewed = one.clock.now
    # one's database is cut: nothing answers on its address (a port nobody listens on)
    cut = Database(db.url.set(port=1).render_as_string(hide_password=False))
    one.fleet.leases.db = cut
    try:
        one.clock.now = renewed + TTL / 3
        await one.fleet.step()  # the renewal fails; still inside the lease: still connected
        assert one.fleet.down_since is not None
        assert one.gateway.said == [("gain", GATEWAY, 1)]
        one.clock.now = renewed + TTL - MARGIN  # MARGIN before it could expire: it stops
        await one.fleet.step()
        await asyncio.sleep(0)  # the stop runs as its own task
        await asyncio.sleep(0)
        assert one.gateway.said == [("gain", GATEWAY, 1), ("lose", GATEWAY, 1)]
        assert GATEWAY not in one.fleet.held
    finally:
        await cut.close()
    # two takes it once the database's clock says it expired, not before
    lease = next(x for x in await two.fleet.leases.all() if x.name == GATEWAY)
    taken_at = None
    for _ in range(int(TTL * 20) + 40):  # bounded: the lease ends within TTL
        await two.fleet.step()
        if two.gateway.said:
            taken_at = await two.fleet.leases.now()
            break
        await asyncio.sleep(0.05)
    assert two.gateway.said == [("gain", GATEWAY, 2)]
    assert taken_at is not None and taken_at >= lease.expires
    await two.fleet.stop()


async def test_status_says_which_process_is_connected_to_discord(
    db: Database, tmp_path: Path
) -> None:
    """/status's "background work" (every face's) names the gateway's holder beside the
    server's, from the holder and from another process; nothing of it while no process wants
    the gateway (only `serve` processes)."""
    one, two = process(db, "one"), process(db, "two")
    await one.fleet.step()
    await two.fleet.step()
    server = start_mcsim(tmp_path / "world", password=PASSWORD)
    settings = make_settings(tmp_path, [server_config(server, PASSWORD, name="a")])
    services = await build_services(settings)
    try:
        ops = Core.around(services).ops
        caller = Caller(1, "mod", Rank.MODERATOR, "console", 1)

        async def background(fleet: Fleet) -> str:
            services.fleet = fleet
            [found] = await status(ops, caller, ServerRef(server="a"))
            assert found.ok  # the server answered: the rest of /status is there too
            return found.background

        said = await background(two.fleet)
        assert said.endswith("; Discord: connected from the process one"), said
        assert (await background(one.fleet)).endswith(
            "; Discord: connected from this process (one)"
        )
        await one.fleet.drop(GATEWAY)
        await two.fleet.drop(GATEWAY)  # the gateway is free and nobody wants it
        await two.fleet.step()
        assert "Discord" not in await background(two.fleet)
        two.fleet.want(GATEWAY, two.gateway)
        assert "Discord: no process connected yet (one connects within 3 s)" in (
            await background(two.fleet)
        )
    finally:
        services.fleet = None
        await services.close()
        server.stop()
        await one.fleet.stop()
        await two.fleet.stop()
