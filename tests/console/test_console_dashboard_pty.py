"""The README's first command as a person runs it: `python -m bot console` with no settings, in a
120-column xterm. The dashboard is up without a restart (on 127.0.0.1, a free port), `/calendar`
and `/dashboard` answer with addresses, and each address comes out in one piece: never broken
into lines, and a terminal hyperlink (OSC 8) where the terminal draws colours."""

from __future__ import annotations

import io
import re
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.operations.sections import Field, Section
from console.session import Screen
from tests.e2e.test_e2e_console_pty import COLUMNS, CONSOLE, Xterm, console_env, prompt_is

# what a terminal hyperlink is made of: ESC ] 8 ; params ; URL ST ... ESC ] 8 ; ; ST
_OSC8 = re.compile(r"\x1b\]8;[^;\x1b]*;([^\x1b]*)\x1b\\")
_CSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def printed(raw: bytes) -> str:
    """The text the console wrote, as a person copies it: escape sequences left out, and the
    links' targets collected apart (see :func:`links`)."""
    text = raw.decode("utf-8", errors="replace").replace("\r\n", "\n")
    return _CSI.sub("", _OSC8.sub("", text))


def links(raw: bytes) -> list[str]:
    return [url for url in _OSC8.findall(raw.decode("utf-8", errors="replace")) if url]


@pytest.fixture
def xterm(tmp_path: Path) -> Iterator[Xterm]:
    term = Xterm(CONSOLE, env=console_env(tmp_path, "xterm"), cwd=tmp_path)
    try:
        yield term
    finally:
        term.close()


@pytest.mark.slow
def test_the_first_command_serves_the_calendar_and_prints_links_whole(xterm: Xterm) -> None:
    assert COLUMNS == 120
    screen = xterm.expect("type /help, or quit")
    start = re.search(r"Web dashboard: (http://127\.0\.0\.1:\d+) \(", screen)
    assert start is not None, screen
    base = start.group(1)
    assert "Only this computer can open it (127.0.0.1)" in screen
    xterm.settle(prompt_is(""))

    mark = len(xterm.raw)
    xterm.type("/calendar")
    xterm.expect(".ics", after=len(xterm.screen))
    xterm.pause(0.5)  # the rest of the reply's line
    said = printed(xterm.raw[mark:])
    assert "not enabled" not in said
    feed = re.search(re.escape(base) + r"/calendar/[\w-]+\.ics", said)
    assert feed is not None, said
    assert len(feed.group(0)) > COLUMNS // 2  # long enough that folding it was a risk
    assert feed.group(0) in links(xterm.raw[mark:])  # a terminal hyperlink too
    with urllib.request.urlopen(feed.group(0), timeout=30) as answer:
        assert answer.status == 200 and b"BEGIN:VCALENDAR" in answer.read()

    mark = len(xterm.raw)
    xterm.type("/dashboard")
    xterm.expect("do not share it", after=len(xterm.screen))
    xterm.pause(0.5)
    said = printed(xterm.raw[mark:])
    # the whole link, then the line's end (a link longer than the line: the tests below)
    login = re.search(re.escape(base) + r"/login\?c=[\w.-]+(?=\s*\n)", said)
    assert login is not None, said
    assert login.group(0) in links(xterm.raw[mark:])
    with urllib.request.urlopen(login.group(0), timeout=30) as page:
        assert page.status == 200 and b"Log in" in page.read()

    xterm.type("quit")
    assert xterm.proc.wait(60) == 0
    assert "Traceback" not in xterm.screen


def test_a_link_longer_than_the_line_prints_whole_at_120_columns() -> None:
    """The same, in process: a reply with a 170-character link, at a 120-column terminal and
    through a pipe, and in a section's field (indented under its name)."""
    link = "http://127.0.0.1:40000/login?t=.eJy" + "Ab3_x-Yz" * 18 + ".axXCdw.yNHavzL78af"
    reply = f"Your login link (it works once, for 5 minutes; do not share it):\n{link}"
    section = Section("", fields=(Field("feed", link),))
    for terminal in (True, False):
        out = io.StringIO()
        screen = Screen(out, terminal=terminal)
        screen.console.width = COLUMNS
        screen.show(reply, (section,), prefix="[#1] ")
        said = printed(out.getvalue().encode())
        assert said.count(link + "\n") == 2, said
        assert links(out.getvalue().encode()) == ([link, link] if terminal else [])


def test_a_link_with_markdown_marks_prints_as_it_is() -> None:
    """A login token is URL-safe base64 with dots: `._ab_.` or `-*` in it would read as emphasis
    to markdown, dropping the marks and breaking the link. Discord shows a link as it is; in code
    spans the text is already literal, and the marks outside links still format."""
    link = "http://127.0.0.1:40000/login?t=.eJy_Ab3_.x__Yz__.k*q*r.~~s~~"
    message = f"Your login link:\n{link}\n`a_b_` and _this_ in italics"
    for terminal in (True, False):
        out = io.StringIO()
        screen = Screen(out, terminal=terminal)
        screen.console.width = COLUMNS
        screen.show(message, prefix="[#1] ")
        said = printed(out.getvalue().encode())
        assert link + "\n" in said, said
        assert "a_b_ and this in italics" in said, said
        assert links(out.getvalue().encode()) == ([link] if terminal else [])
