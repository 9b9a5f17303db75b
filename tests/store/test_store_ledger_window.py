"""The window of doubt the ledger measures from the ring's reads (bot.store.ledger_sight), on
both engines: a server frozen or stalled between the bot's last two reads ticks at its own rate
again after, so the rate measured over that pause (none) must not shrink the window. Seen in the
chaos trials with the `rcon` source: a read of the frozen game time, then 20 ticks stepped at
200 a second before the SIGKILL; the window ended 3 ticks after the read, and a task run in
those 20 ticks was not in doubt: its saved copy ran again."""

from __future__ import annotations

from bot.store.db import Database
from bot.store.ledger import Ledger
from bot.store.ledger_sight import DOUBT_MARGIN, RATE_MEMORY


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


async def read_at(ledger: Ledger, clock: Clock, at: float, game_time: int) -> None:
    clock.now = at
    ledger.poll_started()
    await ledger.polled(game_time)


async def test_a_pause_between_reads_does_not_shrink_the_window(store_db: Database) -> None:
    clock = Clock()
    ledger = Ledger(store_db, "sim", clock=clock)
    ledger.regained()  # in sight: the reads count
    await read_at(ledger, clock, 0.0, 100)
    await read_at(ledger, clock, 1.0, 300)  # 200 ticks a second
    await read_at(ledger, clock, 1.05, 300)  # frozen: no tick since the last read
    clock.now = 1.2  # then stepped at its rate; the next read fails: killed
    ledger.poll_started()
    await ledger.poll_failed()
    pending = await ledger.begin_restore("test")
    assert pending.doubt_after == 300
    assert pending.doubt_until is not None
    assert pending.doubt_until >= 300 + 0.15 * 200 * DOUBT_MARGIN, pending


async def test_a_rate_measured_long_ago_is_forgotten(store_db: Database) -> None:
    clock = Clock()
    ledger = Ledger(store_db, "sim", clock=clock)
    ledger.regained()
    await read_at(ledger, clock, 0.0, 100)
    await read_at(ledger, clock, 1.0, 1100)  # a sprint: 1000 ticks a second
    later = 1.0 + RATE_MEMORY + 1
    await read_at(ledger, clock, later, 1100 + 20 * int(RATE_MEMORY + 1))  # 20 a second
    await read_at(ledger, clock, later + 1, 1100 + 20 * int(RATE_MEMORY + 2))
    clock.now = later + 2
    ledger.poll_started()
    await ledger.poll_failed()
    pending = await ledger.begin_restore("test")
    assert pending.doubt_after is not None and pending.doubt_until is not None
    assert pending.doubt_until - pending.doubt_after == 20 * DOUBT_MARGIN, pending


async def test_the_window_ends_when_the_read_failed_not_when_it_began(store_db: Database) -> None:
    clock = Clock()
    ledger = Ledger(store_db, "sim", clock=clock)
    ledger.regained()
    await read_at(ledger, clock, 0.0, 100)
    await read_at(ledger, clock, 1.0, 300)  # 200 ticks a second
    clock.now = 1.05
    ledger.poll_started()  # its game time answered; its later commands take long
    clock.now = 1.25  # the server died at about 1.2, ticking until then; the read fails
    await ledger.poll_failed()
    pending = await ledger.begin_restore("test")
    assert pending.doubt_until is not None
    assert pending.doubt_until >= 300 + (1.2 - 1.0) * 200, pending


async def test_a_second_start_while_a_restore_is_pending_counts_as_a_rollback(
    store_db: Database,
) -> None:
    """A hand-over sent after the first crash whose answer a second crash took (the restore of
    the first still pending) may have run in a world rolled back again: it is in doubt."""
    ledger = Ledger(store_db, "sim")
    ledger.ring = True
    await ledger.saw(500, 5, await ledger.marks())
    assert await ledger.saw(100, 1, await ledger.marks())  # the first crash: time went back
    assert ledger.rollbacks == 1
    sent_at = ledger.rollbacks  # a hand-over sent now, its answer lost
    first = await ledger.begin_restore("the server started again")  # the second start
    assert ledger.rollbacks == sent_at + 1
    assert (await ledger.begin_restore("again")).reason == first.reason  # the one pending
