"""The log followed over SFTP from a real OpenSSH server, while mcsim's log writer writes and
rolls it: the connection is cut (every session process killed) and the server restarted at
random moments, the reader stopped and started again on its saved place; counted, every seq
arrives exactly once and in order. /status's state says the outage while it lasts."""

from __future__ import annotations

import asyncio
import random
import threading
import time
from contextlib import aclosing
from pathlib import Path

from bot.config import ServerConfig
from bot.events.log_tail import LogTailer
from bot.minecraft.sftp import SftpSession
from bot.minecraft.sftp_log import SftpLogFiles
from mcsim.log import ServerLog
from tests.bot.test_log_tail import MemStore, say
from tests.sftp.conftest import sftp_settings
from tests.sftp.sshd import Sshd

WAIT = 30.0


def session_for(sshd: Sshd, root: Path) -> SftpSession:
    config = ServerConfig(name="rented", rcon_password="pw", **sftp_settings(sshd, root))  # type: ignore[arg-type]
    return SftpSession(config, backoff_initial=0.05, backoff_max=0.4, connect_timeout=5)


def remote_tailer(session: SftpSession, store: MemStore) -> LogTailer:
    return LogTailer(
        session.path("logs", "latest.log"),
        "rented",
        store,
        poll_interval=0.01,
        files=SftpLogFiles(session),
    )


def _writer(slog: ServerLog, total: int, done: threading.Event) -> None:
    rng = random.Random(7)
    for seq in range(1, total + 1):
        say(slog, seq)
        if rng.random() < 0.03:
            slog.rotate()
        time.sleep(rng.random() * 0.012)
    done.set()


async def test_cuts_restarts_and_rolls_lose_and_repeat_no_event(sshd: Sshd, tmp_path: Path) -> None:
    total = 400
    store = MemStore()
    received: list[int] = []
    session = session_for(sshd, tmp_path)
    outage_seen: list[str] = []
    with ServerLog(tmp_path / "logs") as slog:
        say(slog, 0)  # the reader starts at the end of a log it has never seen
        first = remote_tailer(session, store)
        async with aclosing(first.events()) as it:
            pending = asyncio.ensure_future(anext(it))
            await asyncio.wait_for(first.ready.wait(), WAIT)
            done = threading.Event()
            writer = threading.Thread(target=_writer, args=(slog, total, done))
            writer.start()
            received.append((await asyncio.wait_for(pending, WAIT)).seq)
            received += [(await asyncio.wait_for(anext(it), WAIT)).seq for _ in range(39)]
            assert await asyncio.to_thread(sshd.cut) >= 1  # the connection drops mid-tail
            received += [(await asyncio.wait_for(anext(it), WAIT)).seq for _ in range(60)]
        # the reader stops (its place saved) while the server restarts and the log goes on
        await asyncio.to_thread(sshd.stop)
        await asyncio.sleep(0.4)
        second = remote_tailer(session, store)
        async with aclosing(second.events()) as it:
            pending = asyncio.ensure_future(anext(it))
            await asyncio.sleep(0.3)
            state = session.state
            assert not state.connected and state.failing_since is not None, state
            outage_seen.append(str(state.last_error))
            await asyncio.to_thread(sshd.start)
            received.append((await asyncio.wait_for(pending, WAIT)).seq)
            rng = random.Random(3)
            try:
                while len(received) < total:
                    if rng.random() < 0.03:
                        await asyncio.to_thread(sshd.cut)
                    received.append((await asyncio.wait_for(anext(it), WAIT)).seq)
            finally:
                writer.join(timeout=60)
        assert done.is_set()
    await session.close()
    assert received == list(range(1, total + 1)), f"lost or repeated: {received}"
    rolled = await asyncio.to_thread(lambda: list(tmp_path.glob("logs/*.log.gz")))
    assert len(rolled) >= 3  # it rolled under the reader
    assert session.connects >= 3  # reconnected after each cut and the restart
    assert session.state.failing_since is None  # reading again
    assert "Cannot open SFTP" in outage_seen[0], outage_seen
