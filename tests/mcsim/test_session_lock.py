"""One server per world: `<world>/session.lock`, held as vanilla holds it (an fcntl lock, so a
Java server and mcsim exclude each other), in one process as across processes.

Vanilla's order (server/Main.java): log4j opens, and so rolls, latest.log when Main's logger is
made; then the world is locked; a locked world ends the start with `Failed to start the
minecraft server` and the lock's exception, before anything of the world is read or written.
"""

from __future__ import annotations

import gzip
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcsim.server import Server
from mcsim.session_lock import SessionLockedError

LOCKED = "already locked (possibly by other Minecraft instance?)"


def _snapshot(world: Path) -> dict[str, tuple[int, bytes]]:
    """Every file of the world but session.lock, with its mtime and content."""
    return {
        str(p.relative_to(world)): (p.stat().st_mtime_ns, p.read_bytes())
        for p in sorted(world.rglob("*"))
        if p.is_file() and p.name != "session.lock"
    }


def _mcsim(root: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "mcsim", "--root", str(root), "--frozen"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.fixture
def running(tmp_path: Path) -> Iterator[Server]:
    srv = Server(root=tmp_path / "srv", frozen=True)
    srv.start()
    srv.run("scoreboard objectives add o dummy")
    srv.run("scoreboard players set #a o 1")
    srv.save()
    try:
        yield srv
    finally:
        srv.stop()


def test_a_second_server_in_this_process_refuses_with_vanillas_message(running: Server) -> None:
    before = _snapshot(running.world)
    second = Server(root=running.root, frozen=True)
    with pytest.raises(SessionLockedError) as caught:
        second.start()
    lock = (running.world / "session.lock").absolute()
    assert str(caught.value) == f"{lock}: {LOCKED}"
    assert not second.running
    assert _snapshot(running.world) == before
    # log4j rolled the running server's latest.log before the lock was tried, as in vanilla
    text = running.log_path.read_text(encoding="utf-8")
    assert text.splitlines()[0].endswith("[ServerMain/ERROR]: Failed to start the minecraft server")
    assert f"net.minecraft.util.DirectoryLock$LockException: {lock}: {LOCKED}" in text
    (archive,) = sorted((running.root / "logs").glob("*.log.gz"))
    assert "Starting minecraft server version" in gzip.decompress(archive.read_bytes()).decode()
    # the first server still holds the world, here and for other processes
    with pytest.raises(SessionLockedError):
        Server(root=running.root, frozen=True).start()
    proc = _mcsim(running.root)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 1 and LOCKED in err
    assert running.score("#a", "o") == 1


def test_the_lock_is_released_at_stop_and_by_crash(tmp_path: Path) -> None:
    root = tmp_path / "srv"
    with Server(root=root, frozen=True):
        pass
    crashed = Server(root=root, frozen=True)
    crashed.start()
    crashed.crash()
    with Server(root=root, frozen=True) as again:
        assert again.running


def test_the_compact_layout_locks_its_world_too(tmp_path: Path) -> None:
    world = tmp_path / "w"
    with Server(world, frozen=True):
        assert (world / "session.lock").read_bytes() == "☃".encode()
        with pytest.raises(SessionLockedError):
            Server(world, frozen=True).start()


def test_python_m_mcsim_on_a_locked_world_exits_1_without_touching_the_world(
    running: Server,
) -> None:
    before = _snapshot(running.world)
    proc = _mcsim(running.root)
    out, err = proc.communicate(timeout=60)
    lock = (running.world / "session.lock").absolute()
    assert proc.returncode == 1
    assert err.splitlines() == [
        "Failed to start the minecraft server",
        f"net.minecraft.util.DirectoryLock$LockException: {lock}: {LOCKED}",
    ]
    assert "running" not in out
    assert _snapshot(running.world) == before
    # the running server is not disturbed: it still works and still saves
    running.run("scoreboard players set #a o 2")
    running.save()
    assert running.score("#a", "o") == 2


def test_a_sigkilled_mcsim_frees_the_world(tmp_path: Path) -> None:
    root = tmp_path / "srv"
    proc = _mcsim(root)
    try:
        assert proc.stdout is not None
        assert "running on" in proc.stdout.readline()
        with pytest.raises(SessionLockedError):
            Server(root=root, frozen=True).start()
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(20)
    with Server(root=root, frozen=True) as srv:
        assert srv.running
