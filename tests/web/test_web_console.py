"""`DOOM_WEB_PORT=... python -m bot` in console mode: the embedded world in a browser, with a
login link printed at start-up and given again by /dashboard."""

from __future__ import annotations

import http.cookiejar
import io
import queue
import re
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

from bot.testkit.harness import make_settings
from console.front import main


class Keyboard:
    """A console stdin whose lines the test types while the console runs."""

    def __init__(self) -> None:
        self.lines: queue.Queue[str] = queue.Queue()

    def readline(self) -> str:
        return self.lines.get(timeout=120)

    def isatty(self) -> bool:
        return False


def wait_for(out: io.StringIO, pattern: str, count: int = 1, limit: float = 60) -> list[str]:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        found = re.findall(pattern, out.getvalue())
        if len(found) >= count:
            return found
        time.sleep(0.05)
    raise AssertionError(f"no {pattern!r} in the console output:\n{out.getvalue()}")


def log_in(link: str) -> urllib.request.OpenerDirector:
    browser = urllib.request.build_opener(
        urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
    )
    token = urllib.parse.parse_qs(urllib.parse.urlparse(link).query)["c"][0]
    with browser.open(link, timeout=30) as page:
        assert page.status == 200 and b"Log in" in page.read()
    base = link.split("/login")[0]
    body = urllib.parse.urlencode({"c": token}).encode()
    with browser.open(base + "/login", data=body, timeout=30) as page:  # -> 303 -> /servers
        assert page.status == 200 and page.url == base + "/servers"
    return browser


def test_console_mode_serves_the_embedded_world(tmp_path: Path) -> None:
    settings = make_settings(
        tmp_path,
        admin_role_ids=[],
        moderator_role_ids=[],
        admin_user_ids=[],
        audit_channel_id=None,
        web_port=0,
    )
    keys, out = Keyboard(), io.StringIO()
    result: list[int] = []
    runner = threading.Thread(target=lambda: result.append(main(settings, stdin=keys, stdout=out)))
    runner.start()
    try:
        [start_link] = wait_for(out, r"Web dashboard: http://127\.0\.0\.1:\d+ .*?(http://\S+)\)")
        keys.lines.put("/schedule run:say hello there time:1 unit:hour id:greet\n")
        keys.lines.put("/dashboard\n")
        # a one-time code of the dashboard's own (no Discord session behind it)
        links = wait_for(out, r"(http://\S+/login\?c=[\w.\-]+)", count=2)
        assert links[0] == start_link and links[1] != start_link
        for link in (start_link, links[1]):
            browser = log_in(link)
            base = link.split("/login")[0]
            with browser.open(base + "/servers/embedded/queue", timeout=30) as page:
                html = page.read().decode()
            assert "greet" in html and "say hello there" in html
            assert "Clear every task" in html  # the console user is an admin
    finally:
        keys.lines.put("quit\n")
        runner.join(120)
    assert result == [0]
