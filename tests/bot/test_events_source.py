"""The `auto` choice of event source and the (server, seq) merge of several sources."""

from __future__ import annotations

import asyncio
from contextlib import aclosing
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from bot.background.event_source import (
    build_event_source,
    log_readable,
    merge,
    read_broadcast_setting,
)
from bot.events.event import Event
from bot.events.log_tail import LogTailer
from bot.events.storage_poll import StoragePoller
from bot.minecraft.selftest.probe import MemoryCursors
from mcsim.log import ServerLog

WAIT = 10.0


@dataclass
class Srv:
    name: str
    log_path: Path | None
    event_source: Literal["log", "rcon", "auto"] = "auto"
    world_dir: Path | None = None
    events_in_chat: bool | None = None


class Buffer:
    def __init__(self) -> None:
        self.items: list[Event] = []

    async def events_after(self, seq: int) -> list[Event]:
        return [e for e in self.items if e.seq > seq]


def test_auto_uses_the_log_when_readable(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    latest = logs / "latest.log"
    pack = Buffer()
    assert isinstance(build_event_source(Srv("a", None), pack, None), StoragePoller)
    assert not log_readable(latest)  # no folder: a path on another machine
    assert isinstance(build_event_source(Srv("a", latest), pack, None), StoragePoller)
    logs.mkdir()
    assert log_readable(latest)  # the server has not written it yet, but will
    latest.write_text("")
    source = build_event_source(Srv("a", latest), pack, None, log_poll_interval=0.1)
    assert isinstance(source, LogTailer) and source.poll_interval == 0.1
    forced = build_event_source(Srv("a", latest, "rcon"), pack, None, broadcast_rcon_to_ops=True)
    assert isinstance(forced, StoragePoller) and forced.broadcast_rcon_to_ops is True


def test_auto_finds_the_log_beside_world_dir_in_both_layouts(tmp_path: Path) -> None:
    # vanilla's: <root>/server.properties, <root>/logs/latest.log, <root>/<level-name>/level.dat
    root = tmp_path / "vanilla"
    (root / "world").mkdir(parents=True)
    (root / "logs").mkdir()
    (root / "server.properties").write_text("level-name=world\n")
    source = build_event_source(Srv("a", None, world_dir=root / "world"), Buffer(), None)
    assert isinstance(source, LogTailer) and source.path == root / "logs" / "latest.log"
    # mcsim's --world layout keeps server.properties and logs/ in the world folder itself
    world = tmp_path / "old" / "world"
    (world / "logs").mkdir(parents=True)
    (world / "server.properties").write_text("")
    source = build_event_source(Srv("a", None, world_dir=world), Buffer(), None)
    assert isinstance(source, LogTailer) and source.path == world / "logs" / "latest.log"
    # a world folder with no server around it on this machine: the ring
    bare = tmp_path / "bare" / "world"
    bare.mkdir(parents=True)
    assert isinstance(
        build_event_source(Srv("a", None, world_dir=bare), Buffer(), None), StoragePoller
    )


def test_broadcast_setting_from_server_properties(tmp_path: Path) -> None:
    props = tmp_path / "server.properties"
    assert read_broadcast_setting(props) is None  # unreadable
    props.write_text("#Minecraft server properties\nmotd=hi\n")
    assert read_broadcast_setting(props) is True  # vanilla's default
    props.write_text("broadcast-rcon-to-ops=false\nenable-rcon=true\n")
    assert read_broadcast_setting(props) is False
    props.write_text("broadcast-rcon-to-ops=true\n")
    assert read_broadcast_setting(props) is True


def say(slog: ServerLog, seq: int) -> None:
    slog.info(f"[Not Secure] [Server] [doom.schedule] event=retry id=t{seq} seq={seq} t={seq}")


async def test_merge_delivers_each_server_seq_once(tmp_path: Path) -> None:
    store = MemoryCursors()
    buffer = Buffer()
    store.values["rcon:a"] = "0"
    with ServerLog(tmp_path / "a") as slog, ServerLog(tmp_path / "b") as other:
        tail_a = LogTailer(slog.path, "a", store, poll_interval=0.002)
        tail_b = LogTailer(other.path, "b", store, poll_interval=0.002)
        poll_a = StoragePoller(buffer, "a", store, poll_interval=0.002)
        got: list[tuple[str, int]] = []
        async with aclosing(merge(tail_a, poll_a, tail_b)) as stream:
            # the sources start on the first request; the tailers start at the end of their
            # files, so nothing is written before each knows where it starts
            first = asyncio.ensure_future(anext(stream))
            for source in (tail_a, poll_a, tail_b):
                await asyncio.wait_for(source.ready.wait(), WAIT)
            for seq in range(1, 21):
                say(slog, seq)  # server a: both in its log and in its ring buffer
                buffer.items.append(Event("a", seq, "retry", f"t{seq}", seq))
                if seq % 2:
                    say(other, seq)  # server b: the same seqs mean other events
            ev = await asyncio.wait_for(first, WAIT)
            got.append((ev.server, ev.seq))
            while len(got) < 30:
                ev = await asyncio.wait_for(anext(stream), WAIT)
                got.append((ev.server, ev.seq))
    want = [("a", s) for s in range(1, 21)] + [("b", s) for s in range(1, 21, 2)]
    assert sorted(got) == sorted(want)
