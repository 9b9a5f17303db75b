"""One owner per data folder, as a new user meets it: a console bot runs on the embedded world
and a second shell runs `python -m bot ...` on the same folder. The second process exits 2
naming the first one's pid and what to do instead; it starts no server, leaves latest.log as it
is, and the task queued in the running bot runs once, also across the bot's next start."""

from __future__ import annotations

import gzip
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import pytest

from tests.bot.test_cli import bot, env_for

MARK = "one-owner-marker"
STARTED = "Starting minecraft server version"


class Console:
    """`python -m bot` (the console: no token, no server) as a real process, fed line by line."""

    def __init__(self, tmp_path: Path, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bot"],
            cwd=tmp_path,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.out: queue.Queue[str] = queue.Queue()
        self.seen = ""
        assert self.proc.stdout is not None and self.proc.stderr is not None
        for stream in (self.proc.stdout, self.proc.stderr):
            threading.Thread(target=self._pump, args=(stream,), daemon=True).start()

    def _pump(self, stream: IO[str]) -> None:
        for line in stream:
            self.out.put(line)

    def wait_for(self, text: str, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.seen:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"{text!r} not seen in:\n{self.seen}")
            try:
                self.seen += self.out.get(timeout=min(left, 0.5))
            except queue.Empty:
                if self.proc.poll() is not None and self.out.empty():
                    raise AssertionError(f"console ended before {text!r}:\n{self.seen}") from None

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def quit(self) -> int:
        self.send("quit")
        return self.proc.wait(60)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(20)


@pytest.fixture
def consoles() -> Iterator[list[Console]]:
    started: list[Console] = []
    yield started
    for console in started:
        console.kill()


def _runs(log: Path) -> int:
    """The marker's `say` lines in a log (the pack's task ran)."""
    return log.read_text(encoding="utf-8").count(f"[Server] {MARK}")


def _archived_runs(logs: Path) -> int:
    return sum(
        gzip.decompress(p.read_bytes()).decode().count(f"[Server] {MARK}")
        for p in logs.glob("*.log.gz")
    )


@pytest.mark.slow
def test_export_beside_a_running_console_bot_starts_nothing_and_the_task_runs_once(
    tmp_path: Path, consoles: list[Console]
) -> None:
    env = env_for(tmp_path)
    data = tmp_path / "botdata"
    logs = data / "world" / "logs"
    first = Console(tmp_path, env)
    consoles.append(first)
    first.wait_for("embedded mcsim world")
    # 200 ticks: time enough for the second process to come and go before it runs
    first.send(f"/schedule run:say {MARK} time:200 unit:tick id:once")
    first.wait_for("Scheduled once on embedded.")
    latest = logs / "latest.log"
    inode, archives = latest.stat().st_ino, sorted(logs.iterdir())

    for command in ("export", "check", "events", "selftest", "install-datapack"):
        refused = bot(tmp_path, command, env=env)
        assert refused.returncode == 2, (command, refused.stdout, refused.stderr)
        assert f"A bot (pid {first.proc.pid}) is running on the data folder" in refused.stderr
        assert str(data) in refused.stderr and refused.stdout == ""
    plan = tmp_path / "plan.yaml"
    plan.write_text("tasks: []\n", encoding="utf-8")
    refused = bot(tmp_path, "import", str(plan), env=env)
    assert refused.returncode == 2 and "/plan import" in refused.stderr
    assert "/plan export" in bot(tmp_path, "export", env=env).stderr
    second = bot(tmp_path, "console", env=env)
    assert second.returncode == 2
    assert f"Another bot (pid {first.proc.pid}) is already running" in second.stderr

    # no second server: the log was neither rolled nor written by another start
    assert (latest.stat().st_ino, sorted(logs.iterdir())) == (inode, archives)
    assert latest.read_text(encoding="utf-8").count(STARTED) == 1
    deadline = time.monotonic() + 60
    while _runs(latest) == 0 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _runs(latest) == 1
    first.send("/list")
    first.wait_for("queue on embedded: 0 task(s)")
    assert first.quit() == 0

    # the next start restores nothing and runs nothing again
    again = Console(tmp_path, env)
    consoles.append(again)
    again.wait_for("embedded mcsim world")
    again.send("/list")
    again.wait_for("queue on embedded: 0 task(s)")
    # /list waits for the guard's compare: a copy put back (due in the past) would be listed
    # or would run on the first ticks after the release, into this log
    time.sleep(2)
    assert _runs(logs / "latest.log") == 0
    assert _archived_runs(logs) == 1
    assert again.quit() == 0
