"""A program started on a repeat from the dashboard (web/program_repeats.py) over real HTTP, on
the bot's services with mcsim over TCP RCON and a manual wall clock: the Repeat form of a
program's page makes a repeat the programs list shows with its next starts; a refusal names its
field with what was typed kept; a repeat on a group of two servers; Stop asks on its own page,
then stops; all as a moderator, and nothing a client sends ends in a 5xx."""

from __future__ import annotations

import html
import re
from collections.abc import AsyncIterator, Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from bot.testkit.harness import MOD, OTHER_ROLE, make_settings
from mcsim.server import Server
from tests.fixtures import server_config
from tests.web.webclient import Client, api
from tests.web.webdash import BOT_TOKEN, PASSWORD, Dash, dash_on

TIMEOUT = 20_000  # ms, a browser's wait: the machine is shared
STEPS = "- run: say the event starts\n"
BERLIN = ZoneInfo("Europe/Berlin")
BLANK = {"when": "", "timezone": "UTC", "dst_repeated": "", "dst_skipped": ""}


def said(page: str) -> str:
    """The page's text, tags removed, spaces folded."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def repeat_row(page: str, number: int) -> str:
    found = re.search(rf'<tr id="repeat-{number}">(.*?)</tr>', page, re.S)
    assert found is not None, page
    return found.group(1)


def next_starts(row: str) -> list[datetime]:
    return [datetime.fromisoformat(t) for t in re.findall(r'<time datetime="([^"]+)"', row)]


def selected(page: str, name: str) -> str:
    """The chosen option of the repeat form's select `name`."""
    form = page.split('action="/programs/repeat/', 1)[1]
    select = re.search(rf'<select name="{name}"[^>]*>(.*?)</select>', form, re.S)
    assert select is not None, form
    chosen = re.search(r'<option value="([^"]*)" selected>', select.group(1))
    assert chosen is not None, select.group(1)
    return chosen.group(1)


async def test_a_repeat_made_in_the_form_is_listed_with_its_next_starts(
    dash: Dash, mod: Client
) -> None:
    csrf = await mod.csrf()
    await api(mod, "program/save", {"name": "evening", "steps": STEPS})
    status, page = await mod.get("/programs/edit/evening")
    assert status == 200 and 'action="/programs/repeat/evening"' in page, page
    # the picker offers the server and the groups; the DST choices are /schedule's
    assert '<option value="main">main</option>' in page.split('class="schedule program-repeat"')[1]
    assert "group: all (1 server)" in page
    assert "In the hour the clocks repeat" in page and "run in its second pass" in page
    status, page = await mod.get("/programs")
    assert "No program repeats." in page, page

    form = {"csrf_token": csrf, "server": "main", "repeat": "1d", **BLANK, "when": "in 1h"}
    status, page = await mod.post("/programs/repeat/evening", data=form)
    assert status == 303, page
    status, page = await mod.get("/programs")
    assert "Program evening repeats every 1d on main as repeat #1" in said(page), said(page)
    row = repeat_row(page, 1)
    assert said(row).startswith("Repeat #1 evening 1d in UTC main "), said(row)
    first = dash.wall.now() + timedelta(hours=1)
    assert next_starts(row) == [first + timedelta(days=n) for n in range(3)]
    assert 'href="/programs/repeats/1/stop"' in row
    listed = (await api(mod, "program/repeats", {}))["repeats"]
    assert [(r["repeat"], r["program"], r["target"], r["every"]) for r in listed] == [
        (1, "evening", "main", "1d")
    ]
    assert [datetime.fromisoformat(t) for t in listed[0]["next"]] == next_starts(row)

    # a cron line in a zone, with a DST policy chosen: its next starts are the zone's 20:00
    cron = {**form, "repeat": "0 20 * * *", "when": "", "timezone": "Europe/Berlin"}
    status, page = await mod.post("/programs/repeat/evening", data={**cron, "dst_skipped": "skip"})
    assert status == 303, page
    status, page = await mod.get("/programs")
    row = repeat_row(page, 2)
    assert "<code>0 20 * * *</code> in Europe/Berlin" in row, row
    berlin = [t.astimezone(BERLIN) for t in next_starts(row)]
    assert [(t.hour, t.minute) for t in berlin] == [(20, 0)] * 3
    assert berlin[0] > dash.wall.now() and berlin[1] - berlin[0] == timedelta(days=1)
    facts = (await api(mod, "program/repeats", {}))["repeats"][1]
    assert (facts["timezone"], facts["dst_skipped"]) == ("Europe/Berlin", "skip")


async def test_a_refused_repeat_names_its_field_and_keeps_what_was_typed(
    dash: Dash, mod: Client
) -> None:
    csrf = await mod.csrf()
    await api(mod, "program/save", {"name": "evening", "steps": STEPS})
    form = {
        "csrf_token": csrf,
        "server": "all",
        "repeat": "every fortnight",
        "when": "fri 20:00",
        "timezone": "Europe/Berlin",
        "dst_repeated": "both",
        "dst_skipped": "skip",
    }
    status, page = await mod.post("/programs/repeat/evening", data=form)
    assert status == 400 and 'id="repeat-error"' in page, page
    error = said(page.split('id="repeat-error"', 1)[1].split("</div>", 1)[0])
    assert error.startswith("> Repeat (interval or cron) repeat : The interval"), error
    assert "'every fortnight' is not a duration" in error, error
    assert re.search(r'name="repeat"[^>]*value="every fortnight"[^>]*aria-invalid="true"', page)
    repeat_form = page.split('action="/programs/repeat/', 1)[1]
    assert 'name="when" maxlength="100" value="fri 20:00"' in repeat_form
    assert [selected(page, n) for n in ("server", "timezone", "dst_repeated", "dst_skipped")] == [
        "all",
        "Europe/Berlin",
        "both",
        "skip",
    ]
    assert 'id="start-error"' not in page  # the start form is not the one refused
    # each field the operation refuses is named, the form kept
    for field, value in (
        ("when", "whenever"),
        ("timezone", "Mars/Olympus"),
        ("dst_repeated", "sometimes"),
        ("server", "nowhere"),
        ("repeat", ""),
    ):
        bad = {**form, "repeat": "2h", field: value}
        status, page = await mod.post("/programs/repeat/evening", data=bad)
        assert status in (400, 404) and 'id="repeat-error"' in page, (field, page)
        assert f"<code>{field}</code>:" in page, (field, said(page))
    status, page = await mod.post("/programs/repeat/evening", data={**form, "colour": "red"})
    assert status == 400 and "colour" in said(page), page
    assert (await api(mod, "program/repeats", {}))["repeats"] == []


async def test_no_input_ends_in_a_server_error(dash: Dash, mod: Client) -> None:
    csrf = await mod.csrf()
    await api(mod, "program/save", {"name": "evening", "steps": STEPS})
    form = {"csrf_token": csrf, "server": "main", "repeat": "1d", **BLANK}
    tries: list[tuple[str, dict[str, str]]] = [
        ("/programs/repeat/nothing", form),  # no such program
        ("/programs/repeat/evening", {**form, "repeat": "x" * 5000}),
        ("/programs/repeat/evening", {**form, "when": "\x00"}),
        ("/programs/repeat/evening", {**form, "timezone": "../../etc/passwd"}),
        ("/programs/repeat/evening", {"csrf_token": csrf}),
        ("/programs/repeat/evening", {"repeat": "1d"}),  # no token
        ("/programs/repeats/9/stop", {"csrf_token": csrf, "confirm": "yes"}),
        ("/programs/repeats/9/stop", {"csrf_token": csrf}),
        ("/programs/repeats/99999999999999999999999/stop", {"csrf_token": csrf, "confirm": "yes"}),
    ]
    for path, data in tries:
        status, page = await mod.post(path, data=data)
        assert 400 <= status < 500 or status == 303, (path, status, page)
    status, page = await mod.post("/programs/repeat/nothing", data=form)
    assert status == 404 and "There is no program" in page, page
    for path in ("/programs/repeats/9/stop", "/programs/repeats/99999999999999999999999/stop"):
        status, page = await mod.get(path)
        assert status == 404 and "There is no program repeat" in page, (path, page)
    assert (await api(mod, "program/repeats", {}))["repeats"] == []


async def test_stop_asks_first_then_stops(dash: Dash, mod: Client) -> None:
    csrf = await mod.csrf()
    await api(mod, "program/save", {"name": "evening", "steps": STEPS})
    form = {"csrf_token": csrf, "server": "main", "repeat": "2h", **BLANK}
    assert (await mod.post("/programs/repeat/evening", data=form))[0] == 303
    status, page = await mod.get("/programs/repeats/1/stop")
    assert status == 200, page
    assert "Stop repeat #1 of <code>evening</code>?</h1>" in page, page
    assert "It starts evening on main, 2h in UTC." in said(page), said(page)
    assert 'name="confirm" value="yes"' in page and "Yes, stop it" in page
    # without the confirmation nothing stops
    status, page = await mod.post("/programs/repeats/1/stop", data={"csrf_token": csrf})
    assert status == 400 and "Confirm on the confirmation page first." in page, page
    assert [r["repeat"] for r in (await api(mod, "program/repeats", {}))["repeats"]] == [1]
    status, page = await mod.post(
        "/programs/repeats/1/stop", data={"csrf_token": csrf, "confirm": "yes"}
    )
    assert status == 303, page
    status, page = await mod.get("/programs")
    assert "Repeat #1 stopped: evening starts no more" in said(page), said(page)
    assert 'id="repeat-1"' not in page and "No program repeats." in page
    assert (await api(mod, "program/repeats", {}))["repeats"] == []
    # a second stop is the operation's refusal, said on the list; its question is gone
    status, page = await mod.post(
        "/programs/repeats/1/stop", data={"csrf_token": csrf, "confirm": "yes"}
    )
    assert status == 303, page
    assert "Repeat #1 is stopped already." in said((await mod.get("/programs"))[1])
    assert (await mod.get("/programs/repeats/1/stop"))[0] == 404


async def test_a_user_whose_role_was_taken_away_is_refused(dash: Dash, mod: Client) -> None:
    csrf = await mod.csrf()
    await api(mod, "program/save", {"name": "evening", "steps": STEPS})
    form = {"csrf_token": csrf, "server": "main", "repeat": "1d", **BLANK}
    assert (await mod.post("/programs/repeat/evening", data=form))[0] == 303
    dash.harness.discord.set_roles(MOD.id, [OTHER_ROLE])
    status, page = await mod.post("/programs/repeat/evening", data=form)
    assert status == 403, page
    status, page = await mod.post(
        "/programs/repeats/1/stop", data={"csrf_token": csrf, "confirm": "yes"}
    )
    assert status in (401, 403), page
    dash.harness.discord.set_roles(MOD.id, list(MOD.roles))
    again = await Client(dash).login(MOD)
    try:
        assert [r["repeat"] for r in (await api(again, "program/repeats", {}))["repeats"]] == [1]
    finally:
        await again.close()


# -- on a group of two servers ----------------------------------------------------------------


@pytest.fixture
async def pair(mcsim: Callable[..., Server], tmp_path: Path) -> AsyncIterator[Dash]:
    """The dashboard on two mcsims, `main` and `north`, in the group `pair`."""
    servers = {n: mcsim(password=PASSWORD, name=n) for n in ("main", "north")}
    settings = make_settings(
        tmp_path,
        [server_config(s, PASSWORD, name=n) for n, s in servers.items()],
        discord_token=BOT_TOKEN,
        web_port=0,
        server_groups={"pair": ["main", "north"]},
    )
    async with dash_on(settings, servers["main"]) as dash:
        yield dash


async def test_a_repeat_on_a_group_starts_on_each_of_its_servers(pair: Dash) -> None:
    mod = await Client(pair).login(MOD)
    try:
        csrf = await mod.csrf()
        await api(mod, "program/save", {"name": "evening", "steps": STEPS})
        status, page = await mod.get("/programs/edit/evening")
        assert '<option value="pair">group: pair (2 servers)</option>' in page, page
        form = {"csrf_token": csrf, "server": "pair", "repeat": "12h", **BLANK, "when": "in 2h"}
        status, page = await mod.post("/programs/repeat/evening", data=form)
        assert status == 303, page
        status, page = await mod.get("/programs")
        assert "repeats every 12h on main, north as repeat #1" in said(page), said(page)
        row = repeat_row(page, 1)
        assert "pair" in said(row) and "(main, north)" in said(row), said(row)
        first = pair.wall.now() + timedelta(hours=2)
        assert next_starts(row) == [first + timedelta(hours=12 * n) for n in range(3)]
        facts = (await api(mod, "program/repeats", {}))["repeats"]
        assert [(f["target"], f["servers"]) for f in facts] == [("pair", ["main", "north"])]
        status, page = await mod.get("/programs/repeats/1/stop")
        assert "It starts evening on pair" in said(page), said(page)
    finally:
        await mod.close()


# -- in a browser -----------------------------------------------------------------------------

# what does not fit a narrow window: the page's width, a table wider than its card, a time
# broken over lines, a button or a field off screen
FITS = """() => {
  const off = [...document.querySelectorAll("main button, main a, main input, main select")]
    .filter((el) => { const b = el.getBoundingClientRect();
                      return b.width && (b.left < 0 || b.right > window.innerWidth + 0.5); })
    .map((el) => (el.textContent || el.name).trim());
  const wide = [...document.querySelectorAll(".table-wrap")]
    .filter((w) => w.scrollWidth > w.clientWidth + 1).map((w) => w.scrollWidth);
  const broken = [...document.querySelectorAll("main time")]
    .filter((t) => t.getClientRects().length > 1).map((t) => t.textContent);
  const scroll = document.documentElement.scrollWidth > window.innerWidth
    ? [document.documentElement.scrollWidth] : [];
  return [...off, ...wide, ...broken, ...scroll];
}"""


@pytest.mark.slow
@pytest.mark.parametrize("width", [1280, 390])
async def test_in_a_browser_a_repeat_is_made_listed_and_stopped(
    dash: Dash, browser: Any, shots: Path, width: int
) -> None:
    client = await Client(dash).login(MOD)
    try:
        await api(client, "program/save", {"name": "evening", "steps": STEPS})
    finally:
        await client.close()
    ctx = await browser.new_context(viewport={"width": width, "height": 900})
    ctx.set_default_timeout(TIMEOUT)
    page = await ctx.new_page()
    try:
        await page.goto(await dash.link(MOD))
        await page.get_by_role("button", name="Log in").click()
        await page.wait_for_url("**/servers")
        await page.goto(dash.url + "/programs/edit/evening")
        form = page.locator("form.program-repeat")
        await form.get_by_label("Server or group").select_option("all")
        await form.get_by_label("Repeat (interval or cron)").fill("every fortnight")
        await form.get_by_label("First start (optional)").fill("in 1h")
        await form.get_by_label("In the hour the clocks skip").select_option("skip")
        assert await page.evaluate(FITS) == []
        await page.get_by_role("button", name="Repeat it").click()
        alert = page.locator("#repeat-error")
        await alert.wait_for()
        assert "The interval" in await alert.inner_text()
        field = form.get_by_label("Repeat (interval or cron)")
        assert await field.get_attribute("aria-invalid") == "true"
        assert await form.get_by_label("First start (optional)").input_value() == "in 1h"
        assert await form.get_by_label("Server or group").input_value() == "all"
        await page.screenshot(path=shots / "refused.png", full_page=True)
        # a cron line, as the DST choice kept asks (an interval has no skipped hour)
        await field.fill("0 20 * * *")
        await form.get_by_label("First start (optional)").fill("")
        await page.get_by_role("button", name="Repeat it").click()
        await page.wait_for_url("**/programs")
        row = page.locator("#repeat-1")
        assert " ".join((await row.inner_text()).split()).startswith(
            "Repeat #1 evening 0 20 * * * in UTC all (main)"
        )
        assert await row.locator("time").count() == 3
        assert await page.evaluate(FITS) == []
        await page.screenshot(path=shots / "listed.png", full_page=True)
        await page.get_by_role("link", name="Stop repeat #1").click()
        await page.wait_for_url("**/programs/repeats/1/stop")
        assert await page.evaluate(FITS) == []
        await page.get_by_role("button", name="Yes, stop it").click()
        await page.wait_for_url("**/programs")
        await page.get_by_text("Repeat #1 stopped").wait_for()
        assert await page.locator("#repeat-1").count() == 0
    finally:
        await ctx.close()
