"""A holder whose database stops answering (packets dropped, no error: a relay that goes
silent) stops its servers' work on its own clock before its lease can expire, although its
look at the leases is stuck inside the renewal; another process takes the server only once the
lease expired by the database's clock. Real PostgreSQL, real time (a short TTL)."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any

from bot.background.fleet import Fleet
from bot.store.db import Database
from bot.store.leases import Lease, LeaseStore
from tests.fleet.test_fleet_gateway import relay_to

TTL = 3.0
MARGIN = 1.0
TICK = 0.2


@dataclass(eq=False)
class Work:
    """What each process's fleet started and stopped, in one list, with the time."""

    who: str
    said: list[tuple[str, str, float]]

    async def gain(self, lease: Lease) -> None:
        self.said.append((self.who, "gain", time.monotonic()))

    async def lose(self, lease: Lease) -> None:
        self.said.append((self.who, "lose", time.monotonic()))


async def _left(db: Database) -> float:
    store = LeaseStore(db, "probe", ttl=TTL)
    now, live = await store.live()
    return next(lease.expires - now for lease in live if lease.name == "server:main")


async def test_a_holder_cut_silently_stops_before_its_lease_ends(postgres: Any) -> None:
    url = postgres.new_database(template="doom_template")
    said: list[tuple[str, str, float]] = []
    direct = Database(url)
    async with relay_to(postgres.port) as relay:
        relayed = Database(url.replace(f":{postgres.port}/", f":{relay.port}/", 1))
        holder = Fleet(
            LeaseStore(relayed, "silent:1:a", ttl=TTL),
            ["main"],
            Work("a", said),
            margin=MARGIN,
            tick=TICK,
        )
        other = Fleet(
            LeaseStore(direct, "other:2:b", ttl=TTL),
            ["main"],
            Work("b", said),
            margin=MARGIN,
            tick=TICK,
        )
        try:
            await holder.start()
            assert holder.holds("main")
            await other.start()
            assert not other.holds("main")
            await asyncio.sleep(1.5)  # renewals under way
            relay.freeze()
            frozen = time.monotonic()
            for _ in range(50):
                if ("a", "lose") in [(w, what) for w, what, _ in said]:
                    break
                await asyncio.sleep(0.1)
            stops = [t for w, what, t in said if (w, what) == ("a", "lose")]
            assert stops, f"the holder still acts {time.monotonic() - frozen:.1f} s after the cut"
            stopped = stops[0]
            left = await _left(direct)
            # stopped on its own clock, within the TTL less the margin of its last renewal,
            # while the lease still ran by the database's clock
            assert stopped - frozen <= TTL - MARGIN + TICK, stopped - frozen
            assert left > 0.3, left
            # the other takes it once it expired, after the holder stopped
            for _ in range(80):
                if other.holds("main"):
                    break
                await asyncio.sleep(0.1)
            assert other.holds("main")
            assert [(w, what) for w, what, _ in said] == [
                ("a", "gain"),
                ("a", "lose"),
                ("b", "gain"),
            ]
            assert said[2][2] - stopped >= left - 0.2
        finally:
            relay.thaw()
            await holder.stop()
            await other.stop()
            await relayed.close()
            await direct.close()
