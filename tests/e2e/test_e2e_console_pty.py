"""The console as a person uses it: `python -m bot console` in a pseudo-terminal, typing lines.

No server configured, so the console runs on the embedded mcsim world (the README's "run it").
Reads are bounded by select() deadlines; the process is killed if it outlives the test.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


class Terminal:
    """The other side of a pseudo-terminal: what a person types and sees."""

    def __init__(self, argv: list[str], *, env: dict[str, str], cwd: Path) -> None:
        master, slave = os.openpty()
        self.proc = subprocess.Popen(
            argv, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=cwd,
            start_new_session=True,  # its own session: the pty becomes its controlling terminal
        )  # fmt: skip
        os.close(slave)
        self.master = master
        self.screen = ""

    def type(self, line: str) -> int:
        """Type a line and press Enter; returns where the screen was, to look after it."""
        mark = len(self.screen)
        os.write(self.master, (line + "\n").encode())
        return mark

    def expect(self, text: str, *, after: int = 0, limit: float = 60.0) -> str:
        """Read until ``text`` shows after position ``after``; the screen so far."""
        deadline = time.monotonic() + limit
        while text not in self.screen[after:]:
            remaining = deadline - time.monotonic()
            ready, _, _ = select.select([self.master], [], [], max(remaining, 0))
            chunk = b""
            if ready:
                try:
                    chunk = os.read(self.master, 65536)
                except OSError:  # EIO: the process closed the terminal
                    chunk = b""
            if not chunk:
                raise AssertionError(f"{text!r} never showed; the screen:\n{self.screen}")
            self.screen += chunk.decode("utf-8", errors="replace").replace("\r\n", "\n")
        return self.screen

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        os.close(self.master)


@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[Terminal]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOOM_")}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["DOOM_DATA_DIR"] = str(tmp_path / "botdata")
    env["TERM"] = "dumb"
    term = Terminal([sys.executable, "-m", "bot", "console"], env=env, cwd=tmp_path)
    try:
        yield term
    finally:
        term.close()


@pytest.mark.slow
def test_typing_schedule_then_list_in_a_terminal(terminal: Terminal) -> None:
    terminal.expect("type /help, or quit")
    terminal.expect("> ")  # a prompt, since this is a terminal
    mark = terminal.type("/schedule run:say hello there time:2 unit:hour id:greet")
    screen = terminal.expect("Scheduled greet on embedded.", after=mark)
    # what was typed is echoed by the terminal, as a person sees it
    assert "/schedule run:say hello there time:2 unit:hour id:greet" in screen[mark:]
    mark = terminal.type("/list")
    screen = terminal.expect("queue on embedded: 1 task(s)", after=mark)
    terminal.expect("greet", after=mark)
    mark = terminal.type("/schedule run:op Steve time:1 id:bad")
    terminal.expect("Refused: op is on this server's deny-list.", after=mark)
    terminal.type("quit")
    assert terminal.proc.wait(60) == 0
    assert "Traceback" not in terminal.screen


@pytest.mark.slow
def test_ctrl_c_at_the_prompt_ends_the_console(terminal: Terminal) -> None:
    """Ctrl-C while the console waits for a line: it ends at once, without another Enter (a
    read waiting in the default executor used to hold asyncio.run's shutdown until one came)."""
    terminal.expect("> ")
    mark = len(terminal.screen)
    # what Ctrl-C sends (the pty here is no controlling terminal, so ^C itself would not)
    terminal.proc.send_signal(signal.SIGINT)
    terminal.expect("Interrupted.", after=mark)
    assert terminal.proc.wait(30) == 0
    assert "Traceback" not in terminal.screen
