"""The console as a person uses it: `python -m bot console` in a pseudo-terminal, typing lines.

No server configured, so the console runs on the embedded mcsim world (the README's "run it").
A dumb terminal gets the bytes as written; an xterm's screen is kept by pyte, a terminal
emulator that also answers prompt_toolkit's cursor position requests as a real terminal does.
Reads are bounded by select() deadlines; the process is killed if it outlives the test.
"""

from __future__ import annotations

import fcntl
import os
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pyte
import pytest

ROOT = Path(__file__).resolve().parents[2]


class Terminal:
    """The other side of a pseudo-terminal: what a person types and sees."""

    def __init__(self, argv: list[str], *, env: dict[str, str], cwd: Path) -> None:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
        self.proc = subprocess.Popen(
            argv,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
            cwd=cwd,
            start_new_session=True,  # its own session: the pty becomes its controlling terminal
        )
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
            self.received(chunk)
        return self.screen

    def received(self, chunk: bytes) -> None:
        self.screen += chunk.decode("utf-8", errors="replace").replace("\r\n", "\n")

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        os.close(self.master)


ROWS, COLUMNS = 40, 120
_CONTROL = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|[\x00-\x09\x0b-\x1f]")


class Emulator(pyte.Screen):
    """pyte's screen, answering the program's device status requests on the terminal."""

    def __init__(self, master: int) -> None:
        super().__init__(COLUMNS, ROWS)
        self.master = master

    def write_process_input(self, data: str) -> None:
        os.write(self.master, data.encode())


class Xterm(Terminal):
    """A terminal that draws: ``screen`` is the text received with the control sequences left
    out (to wait on), ``rows`` what the screen shows now, as pyte drew it."""

    def __init__(self, argv: list[str], *, env: dict[str, str], cwd: Path) -> None:
        super().__init__(argv, env=env, cwd=cwd)
        self.emulator = Emulator(self.master)
        self.stream = pyte.ByteStream(self.emulator)
        self.raw = b""

    def received(self, chunk: bytes) -> None:
        self.raw += chunk
        self.stream.feed(chunk)
        self.screen += _CONTROL.sub("", chunk.decode("utf-8", errors="replace"))

    def press(self, keys: str) -> int:
        """Type ``keys`` as they are (no Enter)."""
        mark = len(self.screen)
        os.write(self.master, keys.encode())
        return mark

    def pause(self, seconds: float) -> None:
        """Wait ``seconds``, reading (and answering) what the console sends meanwhile."""
        deadline = time.monotonic() + seconds
        self.settle(lambda _rows: time.monotonic() >= deadline, limit=seconds + 5)

    def rows(self) -> list[str]:
        """The screen's non-empty rows, top to bottom (the prompt's row last)."""
        return [row.rstrip() for row in self.emulator.display if row.strip()]

    def settle(self, until: Callable[[list[str]], bool], *, limit: float = 30.0) -> list[str]:
        """Read until the screen's rows satisfy ``until``; those rows."""
        deadline = time.monotonic() + limit
        while not until(self.rows()):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError("the screen never settled:\n" + "\n".join(self.rows()))
            ready, _, _ = select.select([self.master], [], [], min(remaining, 0.2))
            if ready:
                try:
                    self.received(os.read(self.master, 65536))
                except OSError:
                    raise AssertionError("the console closed the terminal") from None
        return self.rows()


def console_env(tmp_path: Path, term: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOOM_")}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["DOOM_DATA_DIR"] = str(tmp_path / "botdata")
    env["TERM"] = term
    return env


CONSOLE = [sys.executable, "-m", "bot", "console"]


@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[Terminal]:
    term = Terminal(CONSOLE, env=console_env(tmp_path, "dumb"), cwd=tmp_path)
    try:
        yield term
    finally:
        term.close()


@pytest.fixture
def xterm(tmp_path: Path) -> Iterator[Callable[[], Xterm]]:
    """Start the console at an xterm; again after the last one ended (same data folder)."""
    started: list[Xterm] = []

    def start() -> Xterm:
        started.append(Xterm(CONSOLE, env=console_env(tmp_path, "xterm"), cwd=tmp_path))
        return started[-1]

    try:
        yield start
    finally:
        for term in started:
            term.close()


@pytest.mark.slow
def test_typing_schedule_then_list_in_a_terminal(terminal: Terminal) -> None:
    screen = terminal.expect("type /help, or quit")
    terminal.expect("> ")  # a prompt, since this is a terminal
    assert "> " not in screen[: screen.index("doom.schedule console")]  # the greeting first
    mark = terminal.type("/schedule run:say hello there time:2 unit:hour id:greet")
    screen = terminal.expect("Scheduled greet on embedded.", after=mark)
    # what was typed is echoed by the terminal, as a person sees it
    assert "/schedule run:say hello there time:2 unit:hour id:greet" in screen[mark:]
    mark = terminal.type("/list")
    screen = terminal.expect("queue on embedded: 1 task(s)", after=mark)
    terminal.expect("greet", after=mark)
    mark = terminal.type("/schedule run:op Steve time:1 unit:tick id:bad")
    terminal.expect("Refused: op is on this server's deny-list.", after=mark)
    terminal.type("quit")
    assert terminal.proc.wait(60) == 0
    assert "Traceback" not in terminal.screen


@pytest.mark.slow
def test_ctrl_c_at_the_prompt_ends_the_console(terminal: Terminal) -> None:
    """Ctrl-C while the console waits for a line: it ends at once, without another Enter (a
    read left waiting in the default executor would hold asyncio.run's shutdown until one came)."""
    terminal.expect("> ")
    mark = len(terminal.screen)
    # what Ctrl-C sends (the pty here is no controlling terminal, so ^C itself would not)
    terminal.proc.send_signal(signal.SIGINT)
    terminal.expect("Interrupted.", after=mark)
    assert terminal.proc.wait(30) == 0
    assert "Traceback" not in terminal.screen


def upto_prompt(rows: list[str]) -> list[str]:
    """The rows down to the prompt's (the last one starting with ">"; a completion menu under it
    is left out)."""
    at = max((i for i, row in enumerate(rows) if row.startswith(">")), default=-1)
    return rows[: at + 1]


def prompt_is(text: str) -> Callable[[list[str]], bool]:
    return lambda rows: upto_prompt(rows)[-1:] == [("> " + text).rstrip()]


def shown(rows: list[str], text: str) -> int:
    """How often ``text`` shows down to the prompt."""
    return sum(row.count(text) for row in upto_prompt(rows))


@pytest.mark.slow
def test_at_an_xterm_prints_go_above_the_prompt_and_typing_shows_once(
    xterm: Callable[[], Xterm], tmp_path: Path
) -> None:
    term = xterm()
    term.expect("type /help, or quit")
    term.settle(prompt_is(""))
    before = _CONTROL.sub("", term.raw.decode(errors="replace")).split("doom.schedule console")[0]
    assert ">" not in before  # no prompt drawn (and wiped) before the greeting
    # typed while a command holds the prompt (the selftest takes seconds): drawn once, by the
    # next prompt, not echoed by the terminal as well (no slash: no completion menu to read past)
    mark = len(term.raw)
    term.type("/selftest")
    # the prompt has ended (prompt_toolkit turns bracketed paste off as it leaves the terminal)
    term.settle(lambda _rows: b"\x1b[?2004l" in term.raw[mark:])
    term.pause(1.0)  # the selftest still running: no prompt up
    assert not termios.tcgetattr(term.master)[3] & termios.ECHO  # the terminal does not echo
    term.press("hello")
    rows = term.settle(
        lambda rows: (
            "selftest of 'embedded' passed" in "\n".join(rows) and prompt_is("hello")(rows)
        ),
        limit=90,
    )
    assert shown(rows, "hello") == 1, rows
    term.press("\x15")  # Ctrl-U: the line emptied
    term.settle(prompt_is(""))
    # an alert that comes while a line is half typed: above the prompt, the line drawn again
    mark = term.type("/schedule run:say hello when:in 3s as_player:Steve id:soon")
    term.expect("Planned soon on embedded", after=mark)
    term.settle(prompt_is(""))
    term.press("list")
    rows = term.settle(
        lambda rows: any("Planned task waiting" in r for r in rows) and prompt_is("list")(rows),
        limit=60,
    )
    alert = max(i for i, row in enumerate(rows) if "Planned task waiting" in row)
    assert alert < len(upto_prompt(rows)) - 1, rows
    assert shown(rows[alert:], "list") == 1, rows  # the selftest's lines above say "list" too
    # the half line was kept, not only drawn: Home, a slash, Enter, and it runs as /list
    mark = term.press("\x01/\r")
    term.expect("queue on embedded:", after=mark)
    term.type("quit")
    assert term.proc.wait(60) == 0
    history = (tmp_path / "botdata" / "console_history").read_text()
    assert "\n+/schedule run:say hello when:in 3s as_player:Steve id:soon\n" in history
    assert "\n+/list\n" in history
    # the history outlives the console: the next one recalls the lines with Up, newest first
    term = xterm()
    term.settle(prompt_is(""))
    for line in ("quit", "/list", "/schedule run:say hello when:in 3s as_player:Steve id:soon"):
        term.press("\x1b[A")
        term.settle(prompt_is(line))
    assert "Traceback" not in term.screen
